package gallery.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;

/** The seed's first fact: .to() on a tensor returns a new tensor, the statement alone does nothing. */
public final class DiscardedMoves {
  private DiscardedMoves() {}

  /** In the training loop: the batch is "moved" but the model sees the CPU tensors. */
  static void train(Layer model, DataLoader loader, Device device) {
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    for (Batch batch : loader) {
      Tensor xb = batch.inputs();
      Tensor yb = batch.targets();
      xb = xb.to(device);
      yb = yb.to(device);
      criterion.forward(model.forward(xb), yb).backward();
    }
  }

  /** In a helper: the caller's tensor is not moved by this. */
  static void prepare(Tensor x) {
    x.cuda();
  }

  /** Reading back: the CPU copy is thrown away. */
  static float[] readBack(Tensor logits) {
    logits = logits.cpu();
    return logits.toFloatArray();
  }

  /** In a model: the mask is never moved to the input's device. */
  static final class Masked extends Layer {
    final Linear fc = new Linear(4, 4);

    @Override
    public Tensor forward(Tensor x) {
      Tensor mask = Tensor.ones(Shape.of(4), x.device());
      mask = mask.to(x.device());
      return fc.forward(x).mul(mask);
    }
  }
}
