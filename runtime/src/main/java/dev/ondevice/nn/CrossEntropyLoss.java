package dev.ondevice.nn;

import dev.ondevice.Tensor;

/**
 * The cross entropy between class scores (logits) and int64 class indices: PyTorch's {@code
 * nn.CrossEntropyLoss} with class-index targets, without class weights or an ignored index. The
 * input is {@code [N, C]}, {@code [N, C, d1, ...]} or {@code [C]}; the target has the input's shape
 * without the class dimension. Per element, {@code -log softmax(input)[target]}, computed stably.
 *
 * <p>With label smoothing {@code eps}, the target distribution puts {@code 1 - eps + eps / C} on
 * the target class and {@code eps / C} on the others: the loss per element is {@code (1 - eps) *
 * nll + eps / C * sum over classes of -log softmax(input)}, as in PyTorch. Without it the loss per
 * element is one op, {@link dev.ondevice.Losses#crossEntropy}: one pass over the logits forward and
 * one backward.
 */
public class CrossEntropyLoss extends Loss {
  private final double labelSmoothing;

  /** The mean loss, without label smoothing. */
  public CrossEntropyLoss() {
    this(Reduction.MEAN, 0);
  }

  /** The loss reduced as {@code reduction} says, without label smoothing. */
  public CrossEntropyLoss(Reduction reduction) {
    this(reduction, 0);
  }

  /**
   * The loss with label smoothing.
   *
   * @throws IllegalArgumentException unless {@code 0 <= labelSmoothing <= 1}
   */
  public CrossEntropyLoss(Reduction reduction, double labelSmoothing) {
    super(reduction);
    if (!(labelSmoothing >= 0 && labelSmoothing <= 1)) {
      throw new IllegalArgumentException(
          "CrossEntropyLoss: labelSmoothing must be between 0 and 1, got " + labelSmoothing);
    }
    this.labelSmoothing = labelSmoothing;
  }

  /**
   * The loss of the logits {@code input} against the classes {@code target}.
   *
   * @throws IllegalArgumentException naming the shapes if the target is not int64 or its shape does
   *     not match the input's
   * @throws dev.ondevice.DeviceMismatchException if the target is on another device
   */
  @Override
  public Tensor forward(Tensor input, Tensor target) {
    ClassTargets.check("CrossEntropyLoss", input, target);
    if (labelSmoothing == 0) {
      return reduce(ClassTargets.crossEntropy("CrossEntropyLoss", input, target));
    }
    int c = ClassTargets.classDim(input);
    Tensor logProbabilities = input.logSoftmax(c);
    Tensor nll = ClassTargets.negativeLogLikelihood("CrossEntropyLoss", logProbabilities, target);
    Tensor uniform = logProbabilities.sum(c).neg().mul(labelSmoothing / input.size(c));
    return reduce(nll.mul(1 - labelSmoothing).add(uniform));
  }
}
