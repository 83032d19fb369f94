package dev.ondevice.nn;

import dev.ondevice.Tensor;
import java.util.List;

/**
 * Binary cross entropy of logits against probabilities: PyTorch's {@code nn.BCEWithLogitsLoss}
 * (without weights or {@code pos_weight}). Per element, {@code -(t * log sigmoid(x) + (1 - t) *
 * log(1 - sigmoid(x)))}, computed stably as {@code softplus(x) - t * x}: the softplus is a
 * log-sum-exp of {@code (0, x)}, so that large logits of either sign neither overflow nor lose the
 * gradient {@code sigmoid(x) - t}, which is exact everywhere, 0 included.
 */
public class BceWithLogitsLoss extends Loss {
  /** The mean loss. */
  public BceWithLogitsLoss() {
    this(Reduction.MEAN);
  }

  /** The loss reduced as {@code reduction} says. */
  public BceWithLogitsLoss(Reduction reduction) {
    super(reduction);
  }

  /**
   * The loss of the logits {@code input} against the probabilities {@code target}, of one shape.
   *
   * @throws IllegalArgumentException naming the shapes if they differ or a dtype is not
   *     floating-point
   * @throws dev.ondevice.DeviceMismatchException if the target is on another device
   */
  @Override
  public Tensor forward(Tensor input, Tensor target) {
    ValueTargets.check("BceWithLogitsLoss", input, target);
    Tensor zeroAndLogit = Tensor.stack(List.of(Tensor.zerosLike(input), input), -1);
    Tensor logOneMinusSigmoid = zeroAndLogit.logSoftmax(-1).select(-1, 0);
    return reduce(logOneMinusSigmoid.neg().sub(target.mul(input)));
  }
}
