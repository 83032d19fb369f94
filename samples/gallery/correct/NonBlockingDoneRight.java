package gallery.correct;

import dev.ondevice.Cuda;
import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;

/** Pinned memory with non-blocking copies, and a synchronisation before reading a copy back. */
public final class NonBlockingDoneRight {
  private NonBlockingDoneRight() {}

  /** Batches from a pinned loader, copied without blocking. */
  static Tensor sumOfInputs(TensorDataset data, Device device) {
    DataLoader loader = DataLoader.builder(data).batchSize(32).pinMemory(true).build();
    Tensor total = Tensor.zeros(1, device);
    for (Batch batch : loader) {
      Tensor xb = batch.inputs().to(device, true);
      total = total.add(xb.sum());
    }
    return total;
  }

  /** An explicitly pinned tensor, uploaded asynchronously. */
  static Tensor upload(Tensor host, Device device) {
    return host.pinMemory().to(device, true);
  }

  /** Predictions copied back without blocking, read after a synchronisation. */
  static float[] download(Tensor predictions) {
    Tensor host = predictions.to(Device.cpu(), true);
    Cuda.synchronize();
    return host.toFloatArray();
  }
}
