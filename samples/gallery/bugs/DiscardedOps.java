package gallery.bugs;

import dev.ondevice.Tensor;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;

/** Tensor ops return new tensors: a statement that drops the result does nothing. */
public final class DiscardedOps {
  private DiscardedOps() {}

  /** A forward that forgets to keep the activation. */
  static final class Block extends Layer {
    final Linear fc = new Linear(8, 8);

    @Override
    public Tensor forward(Tensor x) {
      Tensor h = fc.forward(x);
      h.relu(); // expect: DiscardedTensorOp
      return h;
    }
  }

  /** Scaling the loss without keeping the result. */
  static void scaledBackward(Tensor loss) {
    loss.mul(0.5); // expect: DiscardedTensorOp
    loss.backward();
  }

  /** Normalising in a helper and returning the input. */
  static Tensor normalize(Tensor x) {
    x.sub(x.mean(0, true)).div(x.std(new int[] {0}, true, true)); // expect: DiscardedTensorOp
    return x;
  }
}
