package dev.ondevice;

import dev.ondevice.annotations.SameDevice;
import java.util.Arrays;

/**
 * Loss functions as single differentiable ops: PyTorch's {@code torch.nn.functional} losses with
 * {@code reduction='none'}. The layer {@code dev.ondevice.nn.CrossEntropyLoss} calls these and
 * reduces the result.
 */
@SameDevice
public final class Losses {
  private Losses() {}

  /**
   * The cross entropy of class scores against class indices, one loss per element: {@code
   * -logSoftmax(input)[target]} along the class dimension (1, or 0 for an unbatched {@code [C]}
   * input), computed stably. The same values and gradient as {@code input.logSoftmax(c)} gathered
   * at {@code target} and negated, in one pass over the scores forward and one backward, without
   * the tensors in between; on the CPU backend through fused kernels.
   *
   * @param input floating-point scores {@code [N, C]}, {@code [N, C, d1, ...]} or {@code [C]}
   * @param target int64 classes in {@code [0, C)}, of the input's shape without the class dimension
   * @return the losses, of the target's shape and the input's dtype
   * @throws IllegalArgumentException naming the shapes for a non-floating or 0-dim input, a target
   *     that is not int64 or of another shape
   * @throws DeviceMismatchException if the target is on another device
   * @throws IndexOutOfBoundsException for a target outside {@code [0, C)} (on an asynchronous
   *     device, at the next synchronisation)
   */
  public static Tensor crossEntropy(Tensor input, Tensor target) {
    if (!target.device().equals(input.device())) {
      throw new DeviceMismatchException(input.device(), target.device(), "target", "crossEntropy");
    }
    Checks.floating("crossEntropy", "input", input);
    Checks.index("crossEntropy", "target", target);
    int c = input.dim() == 1 ? 0 : 1;
    if (input.dim() == 0 || !Arrays.equals(withoutDim(input, c), target.shape().toArray())) {
      throw new IllegalArgumentException(
          "crossEntropy: input "
              + input.shape()
              + " and target "
              + target.shape()
              + " do not fit: expected input [N, C, ...] or [C] and target [N, ...] or []");
    }
    Tensor in = input.contiguous();
    Tensor logProbs = Creation.empty(in.data.sizes().clone(), in.dtype(), in.device());
    Tensor losses = Creation.empty(target.data.sizes().clone(), in.dtype(), in.device());
    in.data.storage().backend().crossEntropy(in.data, c, target.data, logProbs.data, losses.data);
    return Node.recordOwning(
        "crossEntropy",
        losses,
        new Tensor[] {in},
        new Tensor[] {target},
        new Tensor[] {logProbs},
        (g, needs) -> {
          Tensor gc = g.to(in.dtype());
          Tensor grad = Creation.empty(in.data.sizes().clone(), in.dtype(), in.device());
          in.data
              .storage()
              .backend()
              .crossEntropyBackward(logProbs.data, c, target.data, gc.data, grad.data);
          return new Tensor[] {grad};
        });
  }

  /** The sizes of {@code t} without dimension {@code dim}. */
  private static long[] withoutDim(Tensor t, int dim) {
    long[] sizes = new long[t.dim() - 1];
    for (int i = 0, j = 0; i < t.dim(); i++) {
      if (i != dim) {
        sizes[j++] = t.size(i);
      }
    }
    return sizes;
  }
}
