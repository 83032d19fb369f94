package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.Strided;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;

/**
 * Cross entropy against class indices in one pass over the scores, and its gradient in one pass
 * over the log-probabilities: what log-softmax, a gather of the targets and a negation compute
 * forward, and the gradients of those three backward, without their intermediate tensors.
 */
public final class CrossEntropyKernels {
  private CrossEntropyKernels() {}

  /**
   * {@code logProbs} = the log-softmax of {@code in} along {@code dim}, and {@code losses[l] =
   * -logProbs[l, target[l]]} for each line {@code l} along it; {@code target} (int64) and {@code
   * losses} have the sizes of {@code in} without {@code dim}. The losses are the log-softmax's
   * values, bit for bit.
   *
   * @throws IndexOutOfBoundsException for a target outside {@code [0, in.size(dim))}
   */
  public static void forward(
      Strided in, int dim, Strided target, Strided logProbs, Strided losses) {
    Lines lines = new Lines(in.sizes(), dim);
    HostStorage src = in.host();
    HostStorage dst = logProbs.host();
    LongBuffer classes = target.host().longs();
    HostStorage lossStorage = losses.host();
    ScalarType type = in.dtype();
    int step = in.stride(dim);
    int outStep = logProbs.stride(dim);
    Parallel.forRange(
        lines.count,
        Math.max(1, Loops.GRAIN / Math.max(1, lines.size)),
        (from, to) -> {
          SoftmaxLine line = new SoftmaxLine(type, lines.size);
          for (int l = from; l < to; l++) {
            int k = checkedClass(classes.get(lines.offsetWithout(target, l)), dim, lines.size);
            line.load(src, lines.offset(in, l), step);
            line.writeLog(dst, lines.offset(logProbs, l), outStep);
            double logProbability = line.logProbability(k);
            double loss = type == ScalarType.FLOAT32 ? -(float) logProbability : -logProbability;
            Elements.setDouble(lossStorage, type, lines.offsetWithout(losses, l), loss);
          }
        });
  }

  /**
   * The gradient of {@link #forward} with respect to its input: {@code out[l, j] = (exp(logProbs[l,
   * j]) - (j == target[l] ? 1 : 0)) * grad[l]}, with {@code grad} the losses' gradient (the
   * target's sizes, any strides) and {@code out} the log-probabilities' sizes.
   */
  public static void backward(
      Strided logProbs, int dim, Strided target, Strided grad, Strided out) {
    Lines lines = new Lines(logProbs.sizes(), dim);
    if (lines.size == 0) {
      return;
    }
    LongBuffer classes = target.host().longs();
    int step = logProbs.stride(dim);
    int outStep = out.stride(dim);
    Parallel.forRange(
        lines.count,
        Math.max(1, Loops.GRAIN / lines.size),
        (from, to) -> {
          if (logProbs.dtype() == ScalarType.FLOAT32) {
            float32Lines(logProbs, grad, out, lines, classes, target, step, outStep, from, to);
          } else {
            float64Lines(logProbs, grad, out, lines, classes, target, step, outStep, from, to);
          }
        });
  }

  private static void float32Lines(
      Strided logProbs,
      Strided grad,
      Strided out,
      Lines lines,
      LongBuffer classes,
      Strided target,
      int step,
      int outStep,
      int from,
      int to) {
    int size = lines.size;
    float[] values = new float[size];
    float[] scratch = new float[size];
    FloatBuffer lp = logProbs.host().floats();
    FloatBuffer g = grad.host().floats();
    FloatBuffer o = out.host().floats();
    for (int l = from; l < to; l++) {
      int base = lines.offset(logProbs, l);
      if (step == 1) {
        lp.get(base, values, 0, size);
      } else {
        for (int j = 0, p = base; j < size; j++, p += step) {
          values[j] = lp.get(p);
        }
      }
      VectorMath.exp(values, values, size, scratch);
      float scale = g.get(lines.offsetWithout(grad, l));
      int k = (int) classes.get(lines.offsetWithout(target, l));
      for (int j = 0; j < size; j++) {
        values[j] *= scale;
      }
      values[k] -= scale;
      int outBase = lines.offset(out, l);
      if (outStep == 1) {
        o.put(outBase, values, 0, size);
      } else {
        for (int j = 0, q = outBase; j < size; j++, q += outStep) {
          o.put(q, values[j]);
        }
      }
    }
  }

  private static void float64Lines(
      Strided logProbs,
      Strided grad,
      Strided out,
      Lines lines,
      LongBuffer classes,
      Strided target,
      int step,
      int outStep,
      int from,
      int to) {
    DoubleBuffer lp = logProbs.host().doubles();
    DoubleBuffer g = grad.host().doubles();
    DoubleBuffer o = out.host().doubles();
    for (int l = from; l < to; l++) {
      double scale = g.get(lines.offsetWithout(grad, l));
      int k = (int) classes.get(lines.offsetWithout(target, l));
      int p = lines.offset(logProbs, l);
      int q = lines.offset(out, l);
      for (int j = 0; j < lines.size; j++, p += step, q += outStep) {
        o.put(q, Math.exp(lp.get(p)) * scale - (j == k ? scale : 0));
      }
    }
  }

  private static int checkedClass(long k, int dim, int classes) {
    if (k < 0 || k >= classes) {
      throw new IndexOutOfBoundsException(
          "crossEntropy: target "
              + k
              + " is out of bounds for dimension "
              + dim
              + " with size "
              + classes);
    }
    return (int) k;
  }
}
