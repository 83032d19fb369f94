package dev.ondevice.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * {@code HardCodedDevice}: a move to a device written into the code beside moves to a device
 * variable.
 */
class HardCodedDeviceTest {
  @Test
  void aMoveToAWrittenDeviceBesideMovesToTheDeviceVariable() {
    JavaFileObject f =
        source(
            "Batches",
            AnalysedSources.IMPORTS
                + """
        class Batches {
          static Tensor[] getBatch(Tensor x, Tensor y, Device device) {
            if (device.isCuda()) {
              x = x.to(Device.parse("cuda")); // expect: warning HardCodedDevice
              y = y.to(device);
            }
            return new Tensor[] {x, y};
          }

          static Tensor modelParallel(Tensor x) {
            return x.to(Device.parse("cuda:0")).add(x.to(Device.parse("cuda:1")).to(Device.parse("cuda:0")));
          }

          static Tensor everywhereTheSame(Tensor x, Device device) {
            return x.to(device);
          }
        }\
        """);
    Compilation c = Sources.compile(List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadWarningContaining(
            "x.to(Device.parse(\"cuda\")) moves x to cuda:0, a device written into the"
                + " code, while this code moves its other tensors to device: they meet on different devices wherever device"
                + " is not cuda:0 (another GPU, or the CPU); move it to device as well")
        .inFile(f)
        .onLine(15);
  }
}
