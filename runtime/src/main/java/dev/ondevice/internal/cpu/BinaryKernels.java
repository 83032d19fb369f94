package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.BinaryOp;
import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.Strided;
import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;

/**
 * Elementwise functions of two operands, and {@code where}, on host memory. Arithmetic on floats
 * has loops of its own per op (these are the hot ones); the rest share a loop with a per-element
 * switch.
 */
public final class BinaryKernels {
  private BinaryKernels() {}

  /** {@code out = a op b}; operands have equal sizes (broadcast ones have stride 0). */
  public static void apply(BinaryOp op, Strided a, Strided b, Strided out) {
    Loops.forEach(
        out.sizes(),
        new int[][] {a.strides(), b.strides(), out.strides()},
        new int[] {a.offset(), b.offset(), out.offset()},
        row(op, a, b, out));
  }

  /** {@code out = cond ? a : b}. */
  public static void where(Strided cond, Strided a, Strided b, Strided out) {
    ByteBuffer c = cond.host().bytes();
    HostStorage as = a.host();
    HostStorage bs = b.host();
    HostStorage os = out.host();
    ScalarType t = out.dtype();
    Loops.Row row =
        t == ScalarType.FLOAT32
            ? whereF32(c, as.floats(), bs.floats(), os.floats())
            : (n, off, st) -> {
              for (int i = 0, pc = off[0], pa = off[1], pb = off[2], q = off[3];
                  i < n;
                  i++, pc += st[0], pa += st[1], pb += st[2], q += st[3]) {
                if (c.get(pc) != 0) {
                  Elements.copy(as, pa, os, q, t);
                } else {
                  Elements.copy(bs, pb, os, q, t);
                }
              }
            };
    Loops.forEach(
        out.sizes(),
        new int[][] {cond.strides(), a.strides(), b.strides(), out.strides()},
        new int[] {cond.offset(), a.offset(), b.offset(), out.offset()},
        row);
  }

  /**
   * {@code where} on float32 operands, without the per-element dtype dispatch of the general loop,
   * and without a branch: the condition becomes a bit mask that selects the bits of either operand,
   * so random conditions (the sign pattern of a relu gradient) cost no mispredictions. Contiguous
   * rows (the other operand may be a broadcast scalar) are sliced so that one index addresses all
   * operands, which lets the JIT drop the bounds checks.
   */
  private static Loops.Row whereF32(ByteBuffer c, FloatBuffer a, FloatBuffer b, FloatBuffer o) {
    return (n, off, st) -> {
      if (st[0] == 1 && st[1] == 1 && st[3] == 1 && (st[2] == 1 || st[2] == 0)) {
        ByteBuffer cs = c.slice(off[0], n);
        FloatBuffer as = a.slice(off[1], n);
        FloatBuffer os = o.slice(off[3], n);
        if (st[2] == 0) {
          int other = Float.floatToRawIntBits(b.get(off[2]));
          for (int i = 0; i < n; i++) {
            int mask = select(cs.get(i));
            os.put(
                i,
                Float.intBitsToFloat(
                    (Float.floatToRawIntBits(as.get(i)) & mask) | (other & ~mask)));
          }
        } else {
          FloatBuffer bs = b.slice(off[2], n);
          for (int i = 0; i < n; i++) {
            int mask = select(cs.get(i));
            os.put(
                i,
                Float.intBitsToFloat(
                    (Float.floatToRawIntBits(as.get(i)) & mask)
                        | (Float.floatToRawIntBits(bs.get(i)) & ~mask)));
          }
        }
        return;
      }
      for (int i = 0, pc = off[0], pa = off[1], pb = off[2], q = off[3];
          i < n;
          i++, pc += st[0], pa += st[1], pb += st[2], q += st[3]) {
        int mask = select(c.get(pc));
        int bits =
            (Float.floatToRawIntBits(a.get(pa)) & mask)
                | (Float.floatToRawIntBits(b.get(pb)) & ~mask);
        o.put(q, Float.intBitsToFloat(bits));
      }
    };
  }

  /** All ones for a true (non-zero) condition byte, else zero; without a branch. */
  private static int select(byte condition) {
    int flag = condition;
    return (flag | -flag) >> 31;
  }

  private static Loops.Row row(BinaryOp op, Strided a, Strided b, Strided out) {
    HostStorage as = a.host();
    HostStorage bs = b.host();
    HostStorage os = out.host();
    if (op.isComparison()) {
      return compare(op, a.dtype(), as, bs, os.bytes());
    }
    return switch (a.dtype()) {
      case FLOAT32 -> f32(op, as.floats(), bs.floats(), os.floats());
      case FLOAT64 -> f64(op, as.doubles(), bs.doubles(), os.doubles());
      case INT64 -> i64(op, as.longs(), bs.longs(), os.longs());
      default ->
          throw new IllegalArgumentException(op.opName() + " is not defined on bool operands");
    };
  }

  private static Loops.Row f32(BinaryOp op, FloatBuffer a, FloatBuffer b, FloatBuffer o) {
    Loops.Row elements = f32Elements(op, a, b, o);
    if (!FloatRows.handles(op)) {
      return elements;
    }
    return (n, off, st) -> {
      if (!FloatRows.binary(op, a, b, o, n, off, st)) {
        elements.run(n, off, st);
      }
    };
  }

  private static Loops.Row f32Elements(BinaryOp op, FloatBuffer a, FloatBuffer b, FloatBuffer o) {
    return switch (op) {
      case ADD ->
          (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1], r = off[2], sp = st[0], sq = st[1], sr = st[2];
                i < n;
                i++, p += sp, q += sq, r += sr) {
              o.put(r, a.get(p) + b.get(q));
            }
          };
      case SUB ->
          (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1], r = off[2], sp = st[0], sq = st[1], sr = st[2];
                i < n;
                i++, p += sp, q += sq, r += sr) {
              o.put(r, a.get(p) - b.get(q));
            }
          };
      case MUL ->
          (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1], r = off[2], sp = st[0], sq = st[1], sr = st[2];
                i < n;
                i++, p += sp, q += sq, r += sr) {
              o.put(r, a.get(p) * b.get(q));
            }
          };
      case DIV ->
          (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1], r = off[2], sp = st[0], sq = st[1], sr = st[2];
                i < n;
                i++, p += sp, q += sq, r += sr) {
              o.put(r, a.get(p) / b.get(q));
            }
          };
      default ->
          (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1], r = off[2], sp = st[0], sq = st[1], sr = st[2];
                i < n;
                i++, p += sp, q += sq, r += sr) {
              o.put(r, (float) floating(op, a.get(p), b.get(q)));
            }
          };
    };
  }

  private static Loops.Row f64(BinaryOp op, DoubleBuffer a, DoubleBuffer b, DoubleBuffer o) {
    return (n, off, st) -> {
      for (int i = 0, p = off[0], q = off[1], r = off[2], sp = st[0], sq = st[1], sr = st[2];
          i < n;
          i++, p += sp, q += sq, r += sr) {
        o.put(r, floating(op, a.get(p), b.get(q)));
      }
    };
  }

  private static Loops.Row i64(BinaryOp op, LongBuffer a, LongBuffer b, LongBuffer o) {
    return (n, off, st) -> {
      for (int i = 0, p = off[0], q = off[1], r = off[2], sp = st[0], sq = st[1], sr = st[2];
          i < n;
          i++, p += sp, q += sq, r += sr) {
        o.put(r, integer(op, a.get(p), b.get(q)));
      }
    };
  }

  private static Loops.Row compare(
      BinaryOp op, ScalarType t, HostStorage as, HostStorage bs, ByteBuffer o) {
    if (t == ScalarType.FLOAT32) {
      FloatBuffer a = as.floats();
      FloatBuffer b = bs.floats();
      return (n, off, st) -> {
        if (op == BinaryOp.GT && st[0] == 1 && st[1] == 0 && st[2] == 1) {
          greaterThanScalar(a.slice(off[0], n), b.get(off[1]), o.slice(off[2], n), n);
          return;
        }
        for (int i = 0, p = off[0], q = off[1], r = off[2], sp = st[0], sq = st[1], sr = st[2];
            i < n;
            i++, p += sp, q += sq, r += sr) {
          o.put(r, (byte) (compare(op, a.get(p), b.get(q)) ? 1 : 0));
        }
      };
    }
    if (t == ScalarType.INT64 || t == ScalarType.BOOL) {
      return (n, off, st) -> {
        for (int i = 0, p = off[0], q = off[1], r = off[2], sp = st[0], sq = st[1], sr = st[2];
            i < n;
            i++, p += sp, q += sq, r += sr) {
          o.put(
              r,
              (byte) (compare(op, Elements.getLong(as, t, p), Elements.getLong(bs, t, q)) ? 1 : 0));
        }
      };
    }
    return (n, off, st) -> {
      for (int i = 0, p = off[0], q = off[1], r = off[2], sp = st[0], sq = st[1], sr = st[2];
          i < n;
          i++, p += sp, q += sq, r += sr) {
        o.put(
            r,
            (byte)
                (compare(op, Elements.getDouble(as, t, p), Elements.getDouble(bs, t, q)) ? 1 : 0));
      }
    };
  }

  /**
   * {@code o[i] = a[i] > s} over sliced contiguous rows (one index, no bounds checks left): the
   * mask of a relu gradient.
   */
  private static void greaterThanScalar(FloatBuffer a, float s, ByteBuffer o, int n) {
    for (int i = 0; i < n; i++) {
      o.put(i, (byte) (a.get(i) > s ? 1 : 0));
    }
  }

  static double floating(BinaryOp op, double x, double y) {
    return switch (op) {
      case ADD -> x + y;
      case SUB -> x - y;
      case MUL -> x * y;
      case DIV -> x / y;
      case POW -> Math.pow(x, y);
      case MAXIMUM -> Math.max(x, y);
      case MINIMUM -> Math.min(x, y);
      default -> throw new IllegalArgumentException(op.opName() + " is not arithmetic");
    };
  }

  private static long integer(BinaryOp op, long x, long y) {
    return switch (op) {
      case ADD -> x + y;
      case SUB -> x - y;
      case MUL -> x * y;
      case POW -> integerPower(x, y);
      case MAXIMUM -> Math.max(x, y);
      case MINIMUM -> Math.min(x, y);
      default ->
          throw new IllegalArgumentException(op.opName() + " is not defined on int64 operands");
    };
  }

  /**
   * {@code x^y} by repeated squaring: exact, wrapping on overflow like other int64 arithmetic. A
   * negative exponent truncates towards zero (0 unless x is 1 or -1), as PyTorch's integer pow.
   */
  private static long integerPower(long x, long y) {
    if (y < 0) {
      return x == 1 ? 1 : x == -1 ? ((y & 1) != 0 ? -1 : 1) : 0;
    }
    long result = 1;
    for (long base = x, e = y; e > 0; e >>= 1, base *= base) {
      if ((e & 1) != 0) {
        result *= base;
      }
    }
    return result;
  }

  private static boolean compare(BinaryOp op, double x, double y) {
    return switch (op) {
      case EQ -> x == y;
      case NE -> x != y;
      case LT -> x < y;
      case LE -> x <= y;
      case GT -> x > y;
      case GE -> x >= y;
      default -> logical(op, x != 0, y != 0);
    };
  }

  private static boolean compare(BinaryOp op, long x, long y) {
    return switch (op) {
      case EQ -> x == y;
      case NE -> x != y;
      case LT -> x < y;
      case LE -> x <= y;
      case GT -> x > y;
      case GE -> x >= y;
      default -> logical(op, x != 0, y != 0);
    };
  }

  private static boolean logical(BinaryOp op, boolean x, boolean y) {
    return switch (op) {
      case LOGICAL_AND -> x && y;
      case LOGICAL_OR -> x || y;
      default -> x ^ y;
    };
  }
}
