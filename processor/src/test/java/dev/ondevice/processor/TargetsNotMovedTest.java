package dev.ondevice.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/** {@code TargetsNotMoved}: a batch's tensors left on the CPU while the inputs were moved. */
class TargetsNotMovedTest {
  @Test
  void aModelOfUnknownDeviceTakesTheDeviceOfItsInputs() {
    AnalysedSources.check(
        "Unknown",
        """
        class Unknown {
          static class Net extends Model {
            Tensor forward(Tensor x) {
              return x;
            }
          }

          void train(Net net, Loader loader, Loss loss, Device device) {
            for (Loader.Batch b : loader) {
              Tensor out = net.forward(b.inputs().to(device));
              Tensor l = loss.forward(out, b.targets()); // expect: TargetsNotMoved
              long[] labels = b.targets().toFloatArray() == null ? null : null;
            }
          }
        }\
        """);
  }

  @Test
  void anIteratorOfBatchesCreatedAgainInTheLoopStillGivesBatches() {
    AnalysedSources.check(
        "Refresh",
        """
        class Refresh {
          void train(Model model, Loader loader, Loss loss, Device device, int steps) {
            java.util.Iterator<Loader.Batch> it = loader.iterator();
            for (int step = 0; step < steps; step++) {
              if (!it.hasNext()) {
                it = loader.iterator();
              }
              Loader.Batch b = it.next();
              Tensor x = b.inputs().to(device);
              Tensor l = loss.forward(x, b.targets()); // expect: TargetsNotMoved
            }
          }
        }\
        """);
  }

  @Test
  void aWhileLoopOverABatchIteratorIsABatchLoop() {
    AnalysedSources.check(
        "WhileBatches",
        """
        class WhileBatches {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            Tensor forward(Tensor x) {
              return x;
            }
          }

          void run(Net net, Loader loader, Loss loss, Device device) {
            net.toDevice(device);
            Loader.Batches it = loader.iterator();
            while (it.hasNext()) {
              Loader.Batch b = it.next();
              Tensor out = net.forward(b.inputs().to(device));
              Tensor l = loss.forward(out, b.targets()); // expect: TargetsNotMoved
              double v = l.item(); // expect: warning HostSyncInLoop
            }
            Loader.Batch first = loader.iterator().next();
            double once = net.forward(first.inputs().to(device)).item();
          }
        }\
        """);
  }

  @Test
  void aBatchsTensorsReadFromItsListOrGivenToTheOneImplementationOfAnAbstractStep() {
    JavaFileObject f =
        source(
            "Forecaster",
            AnalysedSources.IMPORTS
                + """
        class Forecaster {
          static class Net extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w);
            }
          }

          abstract static class Base {
            final Net net;
            final Device device;

            Base(Net net, Device device) {
              this.net = net;
              this.device = device;
              net.toDevice(device);
            }

            abstract Tensor output(List<Tensor> inputs);

            void validate(Loader loader) {
              for (Loader.Batch b : loader) {
                List<Tensor> batch = b.tensors();
                Tensor out = output(batch.subList(0, 1)); // expect: TargetsNotMoved
                Tensor direct = net.forward(batch.get(0)); // expect: TargetsNotMoved
                Tensor moved = output(List.of(batch.get(0).to(device)));
              }
            }
          }

          static final class Past extends Base {
            Past(Net net, Device device) {
              super(net, device);
            }

            @Override
            Tensor output(List<Tensor> inputs) {
              return net.forward(inputs.get(0));
            }
          }
        }\
        """);
    Compilation c = Sources.compile(List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "the tensors of batch.subList(0, 1) are still on the CPU: they come from the batch,"
                + " and output uses its tensors in forward (line 50) with net on device; move every tensor of the batch before"
                + " using it: move each of its tensors to device before the call")
        .inFile(f)
        .onLine(36);
  }

  @Test
  void anAbstractStepWithTwoImplementationsIsNotFollowed() {
    AnalysedSources.check(
        "TwoSteps",
        """
        class TwoSteps {
          static class Net extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w);
            }
          }

          abstract static class Base {
            final Net net;

            Base(Net net, Device device) {
              this.net = net;
              net.toDevice(device);
            }

            abstract Tensor output(Tensor input);

            void validate(Loader loader) {
              for (Loader.Batch b : loader) {
                Tensor out = output(b.inputs());
              }
            }
          }

          static final class OnTheModel extends Base {
            OnTheModel(Net net, Device device) {
              super(net, device);
            }

            @Override
            Tensor output(Tensor input) {
              return net.forward(input);
            }
          }

          static final class OnTheHost extends Base {
            OnTheHost(Net net, Device device) {
              super(net, device);
            }

            @Override
            Tensor output(Tensor input) {
              return input.detach();
            }
          }
        }\
        """);
  }

  @Test
  void aStubThatOnlyThrowsStandsForItsOneOverride() {
    AnalysedSources.check(
        "StubStep",
        """
        class StubStep {
          static class Net extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w);
            }
          }

          static class Base {
            final Net net;

            Base(Net net, Device device) {
              this.net = net;
              net.toDevice(device);
            }

            Tensor output(Tensor input) {
              throw new UnsupportedOperationException("NotImplementedError");
            }

            void validate(Loader loader) {
              for (Loader.Batch b : loader) {
                Tensor out = output(b.inputs()); // expect: TargetsNotMoved
              }
            }
          }

          static final class OnTheModel extends Base {
            OnTheModel(Net net, Device device) {
              super(net, device);
            }

            @Override
            Tensor output(Tensor input) {
              return net.forward(input);
            }
          }
        }\
        """);
  }
}
