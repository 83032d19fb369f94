package dev.ondevice.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * {@code MixedDevices} for a model moved to the CPU inside the loop that runs it on its device (a
 * checkpoint saved every n steps with PyTorch's in-place {@code Module.cpu()}).
 */
class ModelMovedInLoopTest {
  @Test
  void aModelMovedToTheCpuInTheLoopThatRunsItIsReportedAtTheMove() {
    JavaFileObject f =
        source(
            "Saves",
            AnalysedSources.IMPORTS
                + """
        class Saves {
          static class Delta extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w);
            }
          }

          void train(Device device, int steps) {
            Delta delta = new Delta();
            delta.toDevice(device);
            for (int step = 0; step < steps; step++) {
              Tensor y = delta.forward(Tensor.randn(2, 2, device));
              if (step % 10 == 0) {
                delta.toDevice(Device.cpu()); // expect: MixedDevices
                System.out.println(delta);
              }
            }
          }

          void movedBack(Device device, int steps) {
            Delta delta = new Delta();
            delta.toDevice(device);
            for (int step = 0; step < steps; step++) {
              Tensor y = delta.forward(Tensor.randn(2, 2, device));
              if (step % 10 == 0) {
                delta.toDevice(Device.cpu());
                System.out.println(delta);
                delta.toDevice(device);
              }
            }
          }

          void afterTraining(Device device, int steps) {
            Delta delta = new Delta();
            delta.toDevice(device);
            for (int step = 0; step < steps; step++) {
              Tensor y = delta.forward(Tensor.randn(2, 2, device));
            }
            delta.toDevice(Device.cpu());
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "delta.toDevice(Device.cpu()) moves delta to the CPU inside the loop, and the"
                + " loop's next pass runs it as if it were still on device (delta.forward(Tensor.randn(2, 2, device)), line"
                + " 25): a model moves in place. To save its state, save delta.stateDict() as it is (saving copies device"
                + " tensors to the host), or move it back afterwards: delta.toDevice(device)")
        .inFile(f)
        .onLine(27);
  }
}
