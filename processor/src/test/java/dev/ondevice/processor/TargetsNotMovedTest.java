package dev.ondevice.processor;

import org.junit.jupiter.api.Test;

/** {@code TargetsNotMoved}: a batch's tensors left on the CPU while the inputs were moved. */
class TargetsNotMovedTest {
  @Test
  void aModelOfUnknownDeviceTakesTheDeviceOfItsInputs() {
    AnalysedSources.check("Unknown", """
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
    AnalysedSources.check("Refresh", """
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
    AnalysedSources.check("WhileBatches", """
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
}
