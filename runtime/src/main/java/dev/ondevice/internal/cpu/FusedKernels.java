package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.Strided;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;

/**
 * Fused elementwise kernels of the training hot path, each one pass over memory where the composed
 * ops would make two or three and allocate temporaries: the scaled in-place add of optimizer
 * updates ({@code target += alpha * other}) and the gradient of relu.
 */
public final class FusedKernels {
  private FusedKernels() {}

  /**
   * {@code target += alpha * other} in place; {@code other} has the target's sizes (stride 0 where
   * broadcast).
   */
  public static void scaledAdd(Strided target, Strided other, double alpha) {
    HostStorage t = target.host();
    HostStorage o = other.host();
    Loops.Row row;
    if (target.dtype() == ScalarType.FLOAT32) {
      FloatBuffer tf = t.floats();
      FloatBuffer of = o.floats();
      float a = (float) alpha;
      row =
          (n, off, st) -> {
            if (st[0] == 1 && st[1] == 1) {
              FloatBuffer x = tf.slice(off[0], n);
              FloatBuffer y = of.slice(off[1], n);
              for (int i = 0; i < n; i++) {
                x.put(i, x.get(i) + a * y.get(i));
              }
            } else {
              for (int i = 0, p = off[0], q = off[1]; i < n; i++, p += st[0], q += st[1]) {
                tf.put(p, tf.get(p) + a * of.get(q));
              }
            }
          };
    } else if (target.dtype() == ScalarType.FLOAT64) {
      DoubleBuffer td = t.doubles();
      DoubleBuffer od = o.doubles();
      row =
          (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1]; i < n; i++, p += st[0], q += st[1]) {
              td.put(p, td.get(p) + alpha * od.get(q));
            }
          };
    } else {
      ScalarType type = target.dtype();
      row =
          (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1]; i < n; i++, p += st[0], q += st[1]) {
              Elements.setDouble(
                  t,
                  type,
                  p,
                  Elements.getDouble(t, type, p) + alpha * Elements.getDouble(o, type, q));
            }
          };
    }
    Loops.forEach(
        target.sizes(),
        new int[][] {target.strides(), other.strides()},
        new int[] {target.offset(), other.offset()},
        row);
  }

  /**
   * The gradient of relu: {@code out = output > 0 ? grad : 0}, all of one floating dtype and equal
   * sizes. The float32 path selects with a bit mask rather than a branch: the sign pattern of
   * activations is random, and mispredicted branches would cost more than the arithmetic.
   */
  public static void reluBackward(Strided grad, Strided output, Strided out) {
    HostStorage g = grad.host();
    HostStorage y = output.host();
    HostStorage o = out.host();
    Loops.Row row;
    if (out.dtype() == ScalarType.FLOAT32) {
      FloatBuffer gf = g.floats();
      FloatBuffer yf = y.floats();
      FloatBuffer of = o.floats();
      row =
          (n, off, st) -> {
            if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
              FloatBuffer gs = gf.slice(off[0], n);
              FloatBuffer ys = yf.slice(off[1], n);
              FloatBuffer os = of.slice(off[2], n);
              for (int i = 0; i < n; i++) {
                int bits = Float.floatToRawIntBits(ys.get(i));
                int positive = (-bits & ~bits) >> 31;
                os.put(i, Float.intBitsToFloat(Float.floatToRawIntBits(gs.get(i)) & positive));
              }
            } else {
              for (int i = 0, p = off[0], q = off[1], r = off[2];
                  i < n;
                  i++, p += st[0], q += st[1], r += st[2]) {
                of.put(r, yf.get(q) > 0 ? gf.get(p) : 0f);
              }
            }
          };
    } else {
      ScalarType type = out.dtype();
      row =
          (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1], r = off[2];
                i < n;
                i++, p += st[0], q += st[1], r += st[2]) {
              Elements.setDouble(
                  o,
                  type,
                  r,
                  Elements.getDouble(y, type, q) > 0 ? Elements.getDouble(g, type, p) : 0);
            }
          };
    }
    Loops.forEach(
        out.sizes(),
        new int[][] {grad.strides(), output.strides(), out.strides()},
        new int[] {grad.offset(), output.offset(), out.offset()},
        row);
  }
}
