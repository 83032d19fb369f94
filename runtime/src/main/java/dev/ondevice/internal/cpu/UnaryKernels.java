package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.backend.UnaryOp;
import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;

/**
 * Elementwise functions of one operand on host memory. The cheap, frequent ones have loops of their
 * own; the transcendental ones share a loop whose per-element switch costs little next to the
 * function itself.
 */
public final class UnaryKernels {
  private UnaryKernels() {}

  /** {@code out = op(in)}. */
  public static void apply(UnaryOp op, Strided in, Strided out) {
    Loops.forEach(
        out.sizes(),
        new int[][] {in.strides(), out.strides()},
        new int[] {in.offset(), out.offset()},
        row(op, in, out));
  }

  private static Loops.Row row(UnaryOp op, Strided in, Strided out) {
    HostStorage is = in.host();
    HostStorage os = out.host();
    if (op == UnaryOp.LOGICAL_NOT) {
      ByteBuffer a = is.bytes();
      ByteBuffer o = os.bytes();
      return (n, off, st) -> {
        for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
            i < n;
            i++, p += sp, q += sq) {
          o.put(q, (byte) (a.get(p) == 0 ? 1 : 0));
        }
      };
    }
    return switch (in.dtype()) {
      case FLOAT32 -> f32(op, is.floats(), os.floats());
      case FLOAT64 -> f64(op, is.doubles(), os.doubles());
      default -> i64(op, is.longs(), os.longs());
    };
  }

  private static Loops.Row f32(UnaryOp op, FloatBuffer a, FloatBuffer o) {
    if (FloatRows.isTranscendental(op)) {
      return (n, off, st) -> FloatRows.transcendental(op, a, o, n, off, st);
    }
    Loops.Row elements = f32Elements(op, a, o);
    if (!FloatRows.handles(op)) {
      return elements;
    }
    return (n, off, st) -> {
      if (!FloatRows.unary(op, a, o, n, off, st)) {
        elements.run(n, off, st);
      }
    };
  }

  private static Loops.Row f32Elements(UnaryOp op, FloatBuffer a, FloatBuffer o) {
    return switch (op) {
      case NEG ->
          (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
                i < n;
                i++, p += sp, q += sq) {
              o.put(q, -a.get(p));
            }
          };
      case RELU ->
          (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
                i < n;
                i++, p += sp, q += sq) {
              float x = a.get(p);
              o.put(q, x > 0 || Float.isNaN(x) ? x : 0f);
            }
          };
      case SQUARE ->
          (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
                i < n;
                i++, p += sp, q += sq) {
              float x = a.get(p);
              o.put(q, x * x);
            }
          };
      case ABS ->
          (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
                i < n;
                i++, p += sp, q += sq) {
              o.put(q, Math.abs(a.get(p)));
            }
          };
      default ->
          (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
                i < n;
                i++, p += sp, q += sq) {
              o.put(q, (float) floating(op, a.get(p)));
            }
          };
    };
  }

  private static Loops.Row f64(UnaryOp op, DoubleBuffer a, DoubleBuffer o) {
    return (n, off, st) -> {
      for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
          i < n;
          i++, p += sp, q += sq) {
        o.put(q, floating(op, a.get(p)));
      }
    };
  }

  private static Loops.Row i64(UnaryOp op, LongBuffer a, LongBuffer o) {
    return (n, off, st) -> {
      for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
          i < n;
          i++, p += sp, q += sq) {
        o.put(q, integer(op, a.get(p)));
      }
    };
  }

  /** The function on one floating value, computed in double. */
  static double floating(UnaryOp op, double x) {
    return switch (op) {
      case NEG -> -x;
      case ABS -> Math.abs(x);
      case SIGN -> Math.signum(x);
      case SQUARE -> x * x;
      case RELU -> x > 0 || Double.isNaN(x) ? x : 0;
      case EXP -> Math.exp(x);
      case LOG -> Math.log(x);
      case LOG1P -> Math.log1p(x);
      case EXPM1 -> Math.expm1(x);
      case SQRT -> Math.sqrt(x);
      case RSQRT -> 1 / Math.sqrt(x);
      case RECIPROCAL -> 1 / x;
      case SIN -> Math.sin(x);
      case COS -> Math.cos(x);
      case TANH -> Math.tanh(x);
      case SIGMOID -> x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
      case ERF -> ErrorFunction.erf(x);
      case FLOOR -> Math.floor(x);
      case CEIL -> Math.ceil(x);
      case ROUND -> Math.rint(x);
      default -> throw new IllegalArgumentException(op + " is not a floating-point function");
    };
  }

  private static long integer(UnaryOp op, long x) {
    return switch (op) {
      case NEG -> -x;
      case ABS -> Math.abs(x);
      case SIGN -> Long.signum(x);
      case SQUARE -> x * x;
      case RELU -> Math.max(x, 0);
      case FLOOR, CEIL, ROUND -> x;
      default -> throw new IllegalArgumentException(op + " is not defined on integers");
    };
  }
}
