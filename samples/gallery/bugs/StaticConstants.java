package gallery.bugs;

import dev.ondevice.Tensor;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;

/** Static tensors never move with a model: a constant on the CPU meets activations on the GPU. */
public final class StaticConstants {
  private StaticConstants() {}

  static final Tensor MEAN = Tensor.of(new float[] {0.1307f});
  static final Tensor STD = Tensor.of(new float[] {0.3081f});

  /** Normalisation with static constants. */
  static final class Normalized extends Layer {
    final Linear fc = new Linear(784, 10);

    @Override
    public Tensor forward(Tensor x) {
      Tensor normalized = x.sub(MEAN).div(STD); // expect: StaticTensorConstant, StaticTensorConstant
      return fc.forward(normalized);
    }
  }

  /** A class-wide lookup table used with device data. */
  static final Tensor WEIGHTS = Tensor.of(new float[] {1f, 2f, 3f});

  static Tensor weighted(Tensor scoresOnDevice, dev.ondevice.Device device) {
    Tensor scores = scoresOnDevice.to(device);
    return scores.mul(WEIGHTS); // expect: StaticTensorConstant
  }
}
