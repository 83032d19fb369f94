package dev.ondevice.nn;

import dev.ondevice.Tensor;

/**
 * The negative log-likelihood of int64 class indices under log-probabilities: PyTorch's {@code
 * nn.NLLLoss}, without class weights or an ignored index. The input ({@code [N, C]}, {@code [N, C,
 * d1, ...]} or {@code [C]}) holds log-probabilities, as {@link LogSoftmax} gives; the target has
 * the input's shape without the class dimension. Per element, {@code -input[target]}.
 */
public class NllLoss extends Loss {
  /** The mean loss. */
  public NllLoss() {
    this(Reduction.MEAN);
  }

  /** The loss reduced as {@code reduction} says. */
  public NllLoss(Reduction reduction) {
    super(reduction);
  }

  /**
   * The loss of the log-probabilities {@code input} against the classes {@code target}.
   *
   * @throws IllegalArgumentException naming the shapes if the target is not int64 or its shape does
   *     not match the input's
   * @throws dev.ondevice.DeviceMismatchException if the target is on another device
   */
  @Override
  public Tensor forward(Tensor input, Tensor target) {
    ClassTargets.check("NllLoss", input, target);
    return reduce(ClassTargets.negativeLogLikelihood("NllLoss", input, target));
  }
}
