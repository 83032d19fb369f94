package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.AdamStep;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.SgdStep;
import dev.ondevice.internal.backend.Strided;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;

/**
 * The optimizers' updates, each one pass over a parameter, its gradient and its state where the
 * composed in-place ops made three to six. The arithmetic is PyTorch's, operation for operation, in
 * the parameter's dtype (within a rounding of ATen's vectorised kernels, which fuse some
 * multiply-adds).
 *
 * <p>State is flushed to zero below the smallest normal number ({@code 1.2e-38} in float32). A
 * momentum or moment whose gradient has become exactly zero, as for a unit that no longer
 * activates, decays geometrically and after some hundred steps would reach the subnormal range,
 * where each multiplication costs the processor a hundred cycles: a training run then slows down
 * several times over without any visible cause. Values that small change no parameter.
 */
public final class OptimizerKernels {
  private OptimizerKernels() {}

  /**
   * One SGD step in place; {@code buffer} is null without momentum. All share sizes and a floating
   * dtype.
   */
  public static void sgd(Strided param, Strided grad, Strided buffer, SgdStep h) {
    boolean momentum = h.momentum() != 0;
    Strided[] operands =
        momentum ? new Strided[] {param, grad, buffer} : new Strided[] {param, grad};
    Loops.Row row =
        param.dtype() == ScalarType.FLOAT32 ? sgdFloat(operands, h) : sgdDouble(operands, h);
    forEach(operands, row);
  }

  /** One Adam or AdamW step in place; {@code maxExpAvgSq} is null without AMSGrad. */
  public static void adam(
      Strided param,
      Strided grad,
      Strided expAvg,
      Strided expAvgSq,
      Strided maxExpAvgSq,
      AdamStep h) {
    Strided[] operands =
        h.amsgrad()
            ? new Strided[] {param, grad, expAvg, expAvgSq, maxExpAvgSq}
            : new Strided[] {param, grad, expAvg, expAvgSq};
    Loops.Row row =
        param.dtype() == ScalarType.FLOAT32 ? adamFloat(operands, h) : adamDouble(operands, h);
    forEach(operands, row);
  }

  private static void forEach(Strided[] operands, Loops.Row row) {
    int[][] strides = new int[operands.length][];
    int[] offsets = new int[operands.length];
    for (int k = 0; k < operands.length; k++) {
      strides[k] = operands[k].strides();
      offsets[k] = operands[k].offset();
    }
    Loops.forEach(operands[0].sizes(), strides, offsets, row);
  }

  /** Floats per chunk of the contiguous paths: four arrays of 8 KiB, in the L1 cache. */
  private static final int CHUNK = 2048;

  private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

  /**
   * Heap arrays a chunk is computed in, where the JIT vectorises the loops; the flush works on the
   * bits, where it vectorises too (a comparison of floats per element would not).
   */
  private static final class Scratch {
    final float[] a = new float[CHUNK];
    final float[] b = new float[CHUNK];
    final float[] c = new float[CHUNK];
    final float[] d = new float[CHUNK];
    final int[] bits = new int[CHUNK];

    /** Reads the parameter into {@link #a} and the gradient into {@link #b}. */
    void load(int len, FloatBuffer param, int p, FloatBuffer grad, int g) {
      param.get(p, a, 0, len);
      grad.get(g, b, 0, len);
    }

    /**
     * Writes {@code values} at {@code at}, subnormals as zero, and reads the flushed values back
     * into {@code values}. An exponent field of zero marks a zero or a subnormal: the mask {@code
     * ~((exponent - 1) >> 31)} is 0 for those and all ones otherwise.
     */
    void storeFlushed(int len, float[] values, FloatBuffer to, IntBuffer toBits, int at) {
      to.put(at, values, 0, len);
      toBits.get(at, bits, 0, len);
      for (int j = 0; j < len; j++) {
        int x = bits[j];
        bits[j] = x & ~(((x & 0x7f800000) - 1) >> 31);
      }
      toBits.put(at, bits, 0, len);
      to.get(at, values, 0, len);
    }
  }

  private static boolean contiguous(int[] steps) {
    for (int step : steps) {
      if (step != 1) {
        return false;
      }
    }
    return true;
  }

  /** One contiguous chunk of {@link #sgdFloat}; {@code buffer} is null without momentum. */
  private static void sgdChunk(
      Scratch w,
      int len,
      FloatBuffer param,
      int p,
      FloatBuffer grad,
      int g,
      FloatBuffer buffer,
      IntBuffer bufferBits,
      int b,
      float lr,
      float wd,
      float m,
      float keep,
      boolean nesterov,
      boolean first) {
    w.load(len, param, p, grad, g);
    float[] x = w.a;
    float[] d = w.b;
    if (wd != 0) {
      for (int j = 0; j < len; j++) {
        d[j] = x[j] * wd + d[j];
      }
    }
    if (buffer != null) {
      float[] v = w.c;
      if (first) {
        System.arraycopy(d, 0, v, 0, len);
      } else {
        buffer.get(b, v, 0, len);
        for (int j = 0; j < len; j++) {
          v[j] = d[j] * keep + v[j] * m;
        }
      }
      w.storeFlushed(len, v, buffer, bufferBits, b);
      if (nesterov) {
        for (int j = 0; j < len; j++) {
          d[j] = v[j] * m + d[j];
        }
      } else {
        d = v;
      }
    }
    for (int j = 0; j < len; j++) {
      x[j] = d[j] * -lr + x[j];
    }
    param.put(p, x, 0, len);
  }

  private static float flush(float v) {
    return Math.abs(v) < Float.MIN_NORMAL ? 0f : v;
  }

  private static double flush(double v) {
    return Math.abs(v) < Double.MIN_NORMAL ? 0.0 : v;
  }

  private static Loops.Row sgdFloat(Strided[] s, SgdStep h) {
    FloatBuffer pf = s[0].host().floats();
    FloatBuffer gf = s[1].host().floats();
    FloatBuffer bf = s.length > 2 ? s[2].host().floats() : null;
    float lr = (float) h.lr();
    float wd = (float) h.weightDecay();
    float m = (float) h.momentum();
    float keep = (float) (1 - h.dampening());
    boolean nesterov = h.nesterov();
    boolean first = h.firstStep();
    IntBuffer bi = bf == null ? null : s[2].host().bytes().asIntBuffer();
    return (n, off, st) -> {
      if (contiguous(st)) {
        Scratch w = SCRATCH.get();
        for (int i = 0; i < n; i += CHUNK) {
          int len = Math.min(CHUNK, n - i);
          sgdChunk(
              w,
              len,
              pf,
              off[0] + i,
              gf,
              off[1] + i,
              bf,
              bi,
              bf == null ? 0 : off[2] + i,
              lr,
              wd,
              m,
              keep,
              nesterov,
              first);
        }
        return;
      }
      int bs = bf == null ? 0 : st[2];
      for (int i = 0, p = off[0], g = off[1], b = bf == null ? 0 : off[2];
          i < n;
          i++, p += st[0], g += st[1], b += bs) {
        float param = pf.get(p);
        float d = wd == 0 ? gf.get(g) : param * wd + gf.get(g);
        if (bf != null) {
          float v = flush(first ? d : d * keep + bf.get(b) * m);
          bf.put(b, v);
          d = nesterov ? v * m + d : v;
        }
        pf.put(p, d * -lr + param);
      }
    };
  }

  private static Loops.Row sgdDouble(Strided[] s, SgdStep h) {
    DoubleBuffer pf = s[0].host().doubles();
    DoubleBuffer gf = s[1].host().doubles();
    DoubleBuffer bf = s.length > 2 ? s[2].host().doubles() : null;
    double lr = h.lr();
    double wd = h.weightDecay();
    double m = h.momentum();
    double keep = 1 - h.dampening();
    boolean nesterov = h.nesterov();
    boolean first = h.firstStep();
    return (n, off, st) -> {
      int bs = bf == null ? 0 : st[2];
      for (int i = 0, p = off[0], g = off[1], b = bf == null ? 0 : off[2];
          i < n;
          i++, p += st[0], g += st[1], b += bs) {
        double param = pf.get(p);
        double d = wd == 0 ? gf.get(g) : param * wd + gf.get(g);
        if (bf != null) {
          double v = flush(first ? d : d * keep + bf.get(b) * m);
          bf.put(b, v);
          d = nesterov ? v * m + d : v;
        }
        pf.put(p, d * -lr + param);
      }
    };
  }

  private static Loops.Row adamFloat(Strided[] s, AdamStep h) {
    FloatBuffer pf = s[0].host().floats();
    FloatBuffer gf = s[1].host().floats();
    FloatBuffer mf = s[2].host().floats();
    FloatBuffer vf = s[3].host().floats();
    FloatBuffer xf = s.length > 4 ? s[4].host().floats() : null;
    float decay = h.decoupled() ? (float) (1 - h.lr() * h.weightDecay()) : 1f;
    float wd = h.decoupled() ? 0f : (float) h.weightDecay();
    float b1 = (float) h.beta1();
    float c1 = (float) (1 - h.beta1());
    float b2 = (float) h.beta2();
    float c2 = (float) (1 - h.beta2());
    float eps = (float) h.eps();
    float stepSize = (float) (h.lr() / (1 - Math.pow(h.beta1(), (double) h.step())));
    float correction2 = (float) Math.sqrt(1 - Math.pow(h.beta2(), (double) h.step()));
    boolean flushSecond = h.flushesSecondMoment(true);
    IntBuffer mi = s[2].host().bytes().asIntBuffer();
    IntBuffer vi = s[3].host().bytes().asIntBuffer();
    return (n, off, st) -> {
      if (contiguous(st)) {
        Scratch w = SCRATCH.get();
        for (int i = 0; i < n; i += CHUNK) {
          int len = Math.min(CHUNK, n - i);
          w.load(len, pf, off[0] + i, gf, off[1] + i);
          float[] param = w.a;
          float[] grad = w.b;
          float[] mean = w.c;
          float[] second = w.d;
          for (int j = 0; j < len; j++) {
            param[j] *= decay;
          }
          if (wd != 0) {
            for (int j = 0; j < len; j++) {
              grad[j] = param[j] * wd + grad[j];
            }
          }
          mf.get(off[2] + i, mean, 0, len);
          vf.get(off[3] + i, second, 0, len);
          for (int j = 0; j < len; j++) {
            mean[j] = grad[j] * c1 + mean[j] * b1;
            second[j] = grad[j] * c2 * grad[j] + second[j] * b2;
          }
          w.storeFlushed(len, mean, mf, mi, off[2] + i);
          if (flushSecond) {
            w.storeFlushed(len, second, vf, vi, off[3] + i);
          } else {
            vf.put(off[3] + i, second, 0, len);
          }
          if (xf != null) {
            float[] max = w.b;
            xf.get(off[4] + i, max, 0, len);
            for (int j = 0; j < len; j++) {
              max[j] = Math.max(max[j], second[j]);
            }
            xf.put(off[4] + i, max, 0, len);
            second = max;
          }
          for (int j = 0; j < len; j++) {
            float denominator = (float) Math.sqrt(second[j]) / correction2 + eps;
            param[j] = -stepSize * (mean[j] / denominator) + param[j];
          }
          pf.put(off[0] + i, param, 0, len);
        }
        return;
      }
      int xs = xf == null ? 0 : st[4];
      for (int i = 0, p = off[0], g = off[1], a = off[2], q = off[3], x = xf == null ? 0 : off[4];
          i < n;
          i++, p += st[0], g += st[1], a += st[2], q += st[3], x += xs) {
        float param = pf.get(p) * decay;
        float grad = wd == 0 ? gf.get(g) : param * wd + gf.get(g);
        float mean = flush(grad * c1 + mf.get(a) * b1);
        float second = grad * c2 * grad + vf.get(q) * b2;
        second = flushSecond ? flush(second) : second;
        mf.put(a, mean);
        vf.put(q, second);
        if (xf != null) {
          second = Math.max(xf.get(x), second);
          xf.put(x, second);
        }
        float denominator = (float) Math.sqrt(second) / correction2 + eps;
        pf.put(p, -stepSize * (mean / denominator) + param);
      }
    };
  }

  private static Loops.Row adamDouble(Strided[] s, AdamStep h) {
    DoubleBuffer pf = s[0].host().doubles();
    DoubleBuffer gf = s[1].host().doubles();
    DoubleBuffer mf = s[2].host().doubles();
    DoubleBuffer vf = s[3].host().doubles();
    DoubleBuffer xf = s.length > 4 ? s[4].host().doubles() : null;
    double decay = h.decoupled() ? 1 - h.lr() * h.weightDecay() : 1;
    double wd = h.decoupled() ? 0 : h.weightDecay();
    double b1 = h.beta1();
    double b2 = h.beta2();
    double eps = h.eps();
    double stepSize = h.lr() / (1 - Math.pow(h.beta1(), (double) h.step()));
    double correction2 = Math.sqrt(1 - Math.pow(h.beta2(), (double) h.step()));
    boolean flushSecond = h.flushesSecondMoment(false);
    return (n, off, st) -> {
      int xs = xf == null ? 0 : st[4];
      for (int i = 0, p = off[0], g = off[1], a = off[2], q = off[3], x = xf == null ? 0 : off[4];
          i < n;
          i++, p += st[0], g += st[1], a += st[2], q += st[3], x += xs) {
        double param = pf.get(p) * decay;
        double grad = wd == 0 ? gf.get(g) : param * wd + gf.get(g);
        double mean = flush(grad * (1 - b1) + mf.get(a) * b1);
        double second = grad * (1 - b2) * grad + vf.get(q) * b2;
        second = flushSecond ? flush(second) : second;
        mf.put(a, mean);
        vf.put(q, second);
        if (xf != null) {
          second = Math.max(xf.get(x), second);
          xf.put(x, second);
        }
        double denominator = Math.sqrt(second) / correction2 + eps;
        pf.put(p, -stepSize * (mean / denominator) + param);
      }
    };
  }
}
