package dev.ondevice.nn;

import dev.ondevice.DType;
import dev.ondevice.DeviceMismatchException;
import dev.ondevice.Losses;
import dev.ondevice.Tensor;
import java.util.Arrays;

/**
 * The class-index targets of {@link CrossEntropyLoss} and {@link NllLoss}: an input of class scores
 * {@code [N, C, d1, ...]} (or {@code [C]}) against int64 classes {@code [N, d1, ...]} (or 0-dim).
 */
final class ClassTargets {
  private ClassTargets() {}

  /** The class dimension of a checked input: 0 for an unbatched {@code [C]}, else 1. */
  static int classDim(Tensor input) {
    return input.dim() == 1 ? 0 : 1;
  }

  /**
   * Checks {@code input} and {@code target} for the loss {@code loss}.
   *
   * @throws IllegalArgumentException naming the loss and both shapes for a non-floating or 0-dim
   *     input, a target that is not int64, or a target shape other than the input's without its
   *     class dimension
   */
  static void check(String loss, Tensor input, Tensor target) {
    if (input.dim() == 0 || !input.dtype().isFloatingPoint()) {
      throw new IllegalArgumentException(
          loss
              + ": input must be floating-point class scores [N, C, ...] or [C],"
              + " got "
              + input.dtype()
              + " of shape "
              + input.shape()
              + " (target shape "
              + target.shape()
              + ")");
    }
    if (!target.device().equals(input.device())) {
      throw new DeviceMismatchException(input.device(), target.device(), "target", loss);
    }
    if (target.dtype() != DType.INT64) {
      throw new IllegalArgumentException(
          loss
              + ": target must hold int64 class indices, got "
              + target.dtype()
              + " (input shape "
              + input.shape()
              + ", target shape "
              + target.shape()
              + "); class probabilities as"
              + " targets are not supported");
    }
    long[] in = input.shape().toArray();
    long[] expected = new long[in.length - 1];
    int c = classDim(input);
    for (int i = 0, j = 0; i < in.length; i++) {
      if (i != c) {
        expected[j++] = in[i];
      }
    }
    if (Arrays.equals(in, target.shape().toArray())) {
      throw new IllegalArgumentException(
          loss
              + ": target has the input's shape "
              + input.shape()
              + ", as class"
              + " probabilities or one-hot targets would; they are not supported: pass the class indices, shape "
              + Arrays.toString(expected)
              + " (target.argmax("
              + c
              + ", false) of a one-hot target)");
    }
    if (!Arrays.equals(expected, target.shape().toArray())) {
      throw new IllegalArgumentException(
          loss
              + ": target shape "
              + target.shape()
              + " does not match input shape "
              + input.shape()
              + "; expected target shape "
              + Arrays.toString(expected));
    }
  }

  /**
   * {@code -logProbabilities[..., target, ...]}: the negative log-likelihood of each target class.
   *
   * @throws IndexOutOfBoundsException naming the loss and the number of classes for a target
   *     outside {@code [0, C)}
   */
  static Tensor negativeLogLikelihood(String loss, Tensor logProbabilities, Tensor target) {
    int c = classDim(logProbabilities);
    try {
      return logProbabilities.gather(c, target.unsqueeze(c)).squeeze(c).neg();
    } catch (IndexOutOfBoundsException e) {
      throw outOfBounds(loss, logProbabilities.size(c), e);
    }
  }

  /**
   * {@code -logSoftmax(input)[..., target, ...]} in one op ({@link Losses#crossEntropy}): the
   * values of {@code negativeLogLikelihood} of the log-softmax, and its gradient.
   *
   * @throws IndexOutOfBoundsException naming the loss and the number of classes for a target
   *     outside {@code [0, C)}
   */
  static Tensor crossEntropy(String loss, Tensor input, Tensor target) {
    try {
      return Losses.crossEntropy(input, target);
    } catch (IndexOutOfBoundsException e) {
      throw outOfBounds(loss, input.size(classDim(input)), e);
    }
  }

  private static IndexOutOfBoundsException outOfBounds(
      String loss, long classes, IndexOutOfBoundsException e) {
    return new IndexOutOfBoundsException(
        loss
            + ": a target is out of bounds for "
            + classes
            + " classes; targets"
            + " must be class indices in [0, "
            + classes
            + ") (ignore_index is not supported): "
            + e.getMessage());
  }
}
