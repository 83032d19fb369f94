package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.BinaryOp;
import dev.ondevice.internal.backend.UnaryOp;
import java.nio.FloatBuffer;

/**
 * The fast paths of the hot float32 elementwise ops on contiguous rows, which the general element
 * loops (variable steps, a bounds check per access, a mispredicted branch per relu) ran at a third
 * of the memory bandwidth or less. Each operand is sliced to the row so that one index addresses
 * all: the JIT then drops the bounds checks, which it keeps for {@code offset + i}. Relu goes
 * through a small heap array instead, where its {@code max} is vectorised. Results are the element
 * loops', element for element. Exp, log, sigmoid and tanh go through heap arrays too, in every
 * layout, to {@link VectorMath}'s float polynomials.
 */
final class FloatRows {
  /** Floats per chunk of relu: 8 KiB, in the L1 cache. */
  private static final int CHUNK = 2048;

  /** Rows shorter than this take the element loop. */
  private static final int MIN_ROW = 64;

  private static final ThreadLocal<float[]> SCRATCH =
      ThreadLocal.withInitial(() -> new float[CHUNK]);

  /** The input, output and scratch chunks of {@link #transcendental}. */
  private static final ThreadLocal<float[][]> MATH_SCRATCH =
      ThreadLocal.withInitial(() -> new float[3][VectorMath.CHUNK]);

  private FloatRows() {}

  /** Whether {@link #binary} computes {@code op}. */
  static boolean handles(BinaryOp op) {
    return op == BinaryOp.ADD || op == BinaryOp.SUB || op == BinaryOp.MUL || op == BinaryOp.DIV;
  }

  /** Whether {@link #transcendental} computes {@code op}. */
  static boolean isTranscendental(UnaryOp op) {
    return op == UnaryOp.EXP || op == UnaryOp.LOG || op == UnaryOp.SIGMOID || op == UnaryOp.TANH;
  }

  /**
   * {@code o = op(a)} for exp, log, sigmoid and tanh over a row as in {@link Loops.Row}, any steps
   * and length: chunks are gathered into heap arrays, where {@link VectorMath} computes them. Every
   * float32 exp, log, sigmoid and tanh goes this way, so a value does not depend on the layout.
   */
  static void transcendental(UnaryOp op, FloatBuffer a, FloatBuffer o, int n, int[] off, int[] st) {
    float[][] chunks = MATH_SCRATCH.get();
    float[] x = chunks[0];
    float[] y = chunks[1];
    float[] scratch = chunks[2];
    for (int i = 0; i < n; i += VectorMath.CHUNK) {
      int len = Math.min(VectorMath.CHUNK, n - i);
      int p = off[0] + i * st[0];
      if (st[0] == 1) {
        a.get(p, x, 0, len);
      } else {
        for (int j = 0; j < len; j++) {
          x[j] = a.get(p + j * st[0]);
        }
      }
      switch (op) {
        case EXP -> VectorMath.exp(x, y, len, scratch);
        case LOG -> VectorMath.log(x, y, len, scratch);
        case SIGMOID -> VectorMath.sigmoid(x, y, len, scratch);
        default -> VectorMath.tanh(x, y, len, scratch);
      }
      int q = off[1] + i * st[1];
      if (st[1] == 1) {
        o.put(q, y, 0, len);
      } else {
        for (int j = 0; j < len; j++) {
          o.put(q + j * st[1], y[j]);
        }
      }
    }
  }

  /** Whether {@link #unary} computes {@code op}. */
  static boolean handles(UnaryOp op) {
    return switch (op) {
      case NEG, ABS, SQUARE, RELU, SQRT -> true;
      default -> false;
    };
  }

  /**
   * {@code o = a op b} over a row as in {@link Loops.Row} when the output and {@code a} are
   * contiguous and {@code b} contiguous or a broadcast scalar (step 0); returns false, computing
   * nothing, otherwise.
   */
  static boolean binary(
      BinaryOp op, FloatBuffer a, FloatBuffer b, FloatBuffer o, int n, int[] off, int[] st) {
    if (n < MIN_ROW || st[0] != 1 || st[2] != 1 || (st[1] != 1 && st[1] != 0)) {
      return false;
    }
    FloatBuffer x = a.slice(off[0], n);
    FloatBuffer z = o.slice(off[2], n);
    if (st[1] == 0) {
      float s = b.get(off[1]);
      switch (op) {
        case ADD -> {
          for (int i = 0; i < n; i++) {
            z.put(i, x.get(i) + s);
          }
        }
        case SUB -> {
          for (int i = 0; i < n; i++) {
            z.put(i, x.get(i) - s);
          }
        }
        case MUL -> {
          for (int i = 0; i < n; i++) {
            z.put(i, x.get(i) * s);
          }
        }
        default -> {
          for (int i = 0; i < n; i++) {
            z.put(i, x.get(i) / s);
          }
        }
      }
      return true;
    }
    FloatBuffer y = b.slice(off[1], n);
    switch (op) {
      case ADD -> {
        for (int i = 0; i < n; i++) {
          z.put(i, x.get(i) + y.get(i));
        }
      }
      case SUB -> {
        for (int i = 0; i < n; i++) {
          z.put(i, x.get(i) - y.get(i));
        }
      }
      case MUL -> {
        for (int i = 0; i < n; i++) {
          z.put(i, x.get(i) * y.get(i));
        }
      }
      default -> {
        for (int i = 0; i < n; i++) {
          z.put(i, x.get(i) / y.get(i));
        }
      }
    }
    return true;
  }

  /**
   * {@code o = op(a)} over a row as in {@link Loops.Row} when both are contiguous; returns false,
   * computing nothing, otherwise.
   */
  static boolean unary(UnaryOp op, FloatBuffer a, FloatBuffer o, int n, int[] off, int[] st) {
    if (n < MIN_ROW || st[0] != 1 || st[1] != 1) {
      return false;
    }
    if (op == UnaryOp.RELU) {
      relu(a, off[0], o, off[1], n);
      return true;
    }
    FloatBuffer x = a.slice(off[0], n);
    FloatBuffer z = o.slice(off[1], n);
    switch (op) {
      case NEG -> {
        for (int i = 0; i < n; i++) {
          z.put(i, -x.get(i));
        }
      }
      case ABS -> {
        for (int i = 0; i < n; i++) {
          z.put(i, Math.abs(x.get(i)));
        }
      }
      case SQUARE -> {
        for (int i = 0; i < n; i++) {
          float v = x.get(i);
          z.put(i, v * v);
        }
      }
      default -> {
        for (int i = 0; i < n; i++) {
          z.put(i, (float) Math.sqrt(x.get(i)));
        }
      }
    }
    return true;
  }

  /**
   * Relu by chunks through a heap array, where the JIT vectorises {@code max}: max(NaN, 0) is NaN
   * and max(-0, 0) is +0, as relu wants, and no branch mispredicts on random signs: {@code o[to +
   * i] = max(a[from + i], 0)} for {@code i < n}, in place where the two are one.
   */
  static void relu(FloatBuffer a, int from, FloatBuffer o, int to, int n) {
    float[] x = SCRATCH.get();
    for (int i = 0; i < n; i += CHUNK) {
      int len = Math.min(CHUNK, n - i);
      a.get(from + i, x, 0, len);
      for (int j = 0; j < len; j++) {
        x[j] = Math.max(x[j], 0f);
      }
      o.put(to + i, x, 0, len);
    }
  }
}
