package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.ScalarType;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;

/**
 * The softmax arithmetic of one line at a time, in buffers that one thread reuses line after line:
 * the line's maximum {@code m} (subtracted first, for stability) and {@code sum = Σ exp(x - m)},
 * accumulated in double. Float32 lines compute their exponentials with {@link VectorMath} in heap
 * arrays, float64 lines with {@code Math.exp}.
 */
final class SoftmaxLine {
  private final boolean float32;
  private final int size;
  private final float[] values;
  private final float[] exps;
  private final float[] scratch;
  private final double[] doubleValues;
  private final double[] doubleExps;
  private double max;
  private double sum;
  private double logSum;

  /** Buffers for lines of {@code size} elements of {@code type} (float32 or float64). */
  SoftmaxLine(ScalarType type, int size) {
    this.float32 = type == ScalarType.FLOAT32;
    this.size = size;
    this.values = float32 ? new float[size] : null;
    this.exps = float32 ? new float[size] : null;
    this.scratch = float32 ? new float[size] : null;
    this.doubleValues = float32 ? null : new double[size];
    this.doubleExps = float32 ? null : new double[size];
  }

  /**
   * Reads the line of {@code s} whose first element is at {@code base}, {@code step} apart, and
   * computes its maximum and sum. A NaN anywhere makes the maximum, and so every result, NaN; a
   * line of -inf alone has maximum 0.
   */
  void load(HostStorage s, int base, int step) {
    double m = Double.NEGATIVE_INFINITY;
    if (float32) {
      FloatBuffer f = s.floats();
      if (step == 1) {
        f.get(base, values, 0, size);
      } else {
        for (int j = 0, p = base; j < size; j++, p += step) {
          values[j] = f.get(p);
        }
      }
      for (int j = 0; j < size; j++) {
        float v = values[j];
        if (v > m || Float.isNaN(v)) {
          m = v;
        }
      }
    } else {
      DoubleBuffer d = s.doubles();
      for (int j = 0, p = base; j < size; j++, p += step) {
        double v = d.get(p);
        doubleValues[j] = v;
        if (v > m || Double.isNaN(v)) {
          m = v;
        }
      }
    }
    max = m == Double.NEGATIVE_INFINITY ? 0 : m;
    double total = 0;
    if (float32) {
      float shift = (float) max;
      for (int j = 0; j < size; j++) {
        exps[j] = values[j] - shift;
      }
      VectorMath.exp(exps, exps, size, scratch);
      for (int j = 0; j < size; j++) {
        total += exps[j];
      }
    } else {
      for (int j = 0; j < size; j++) {
        double e = Math.exp(doubleValues[j] - max);
        doubleExps[j] = e;
        total += e;
      }
    }
    sum = total;
    logSum = Math.log(total);
  }

  /**
   * The log-softmax of element {@code j} of the loaded line, {@code x - m - log(sum)}, in double:
   * what {@link #writeLog} rounds to the line's dtype.
   */
  double logProbability(int j) {
    return (float32 ? values[j] : doubleValues[j]) - max - logSum;
  }

  /**
   * Writes the log-softmax of the loaded line to {@code d} from {@code base}, {@code step} apart.
   */
  void writeLog(HostStorage d, int base, int step) {
    if (float32) {
      for (int j = 0; j < size; j++) {
        exps[j] = (float) logProbability(j);
      }
      put(d.floats(), base, step);
    } else {
      DoubleBuffer o = d.doubles();
      for (int j = 0, q = base; j < size; j++, q += step) {
        o.put(q, logProbability(j));
      }
    }
  }

  /** Writes the softmax of the loaded line to {@code d} from {@code base}, {@code step} apart. */
  void writeSoftmax(HostStorage d, int base, int step) {
    if (float32) {
      float total = (float) sum;
      for (int j = 0; j < size; j++) {
        exps[j] = exps[j] / total;
      }
      put(d.floats(), base, step);
    } else {
      DoubleBuffer o = d.doubles();
      for (int j = 0, q = base; j < size; j++, q += step) {
        o.put(q, doubleExps[j] / sum);
      }
    }
  }

  private void put(FloatBuffer o, int base, int step) {
    if (step == 1) {
      o.put(base, exps, 0, size);
    } else {
      for (int j = 0, q = base; j < size; j++, q += step) {
        o.put(q, exps[j]);
      }
    }
  }
}
