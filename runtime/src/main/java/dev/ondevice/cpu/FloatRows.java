package dev.ondevice.cpu;

import dev.ondevice.backend.BinaryOp;
import dev.ondevice.backend.UnaryOp;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * The fast path of the hot float32 elementwise ops on contiguous rows: each chunk of a row is
 * bulk-copied into small per-thread heap arrays, computed there by a plain array loop the JIT
 * vectorises, and bulk-copied back. Element-by-element buffer access is neither vectorised nor
 * free of checks, and ran these ops at a third of the memory bandwidth. Results are the same as
 * the element loops', element for element.
 */
final class FloatRows {
  /** Floats per chunk: three chunks stay in the L1 cache. */
  private static final int CHUNK = 2048;
  /** Rows shorter than this take the element loop. */
  private static final int MIN_ROW = 64;
  private static final ThreadLocal<float[][]> SCRATCH = ThreadLocal.withInitial(() -> new float[3][CHUNK]);

  private FloatRows() {}

  /** Whether {@link #binary} computes {@code op}. */
  static boolean handles(BinaryOp op) {
    return op == BinaryOp.ADD || op == BinaryOp.SUB || op == BinaryOp.MUL || op == BinaryOp.DIV;
  }

  /** Whether {@link #unary} computes {@code op}. */
  static boolean handles(UnaryOp op) {
    switch (op) {
      case NEG:
      case ABS:
      case SQUARE:
      case RELU:
      case EXP:
      case SQRT:
        return true;
      default:
        return false;
    }
  }

  /**
   * {@code o = a op b} over a row as in {@link Loops.Row} when the output is contiguous and each
   * input contiguous or a broadcast scalar (step 0); returns false, computing nothing, otherwise.
   */
  static boolean binary(BinaryOp op, FloatBuffer a, FloatBuffer b, FloatBuffer o, int n, int[] off, int[] st) {
    if (n < MIN_ROW || st[2] != 1 || (st[0] & ~1) != 0 || (st[1] & ~1) != 0) {
      return false;
    }
    float[][] s = SCRATCH.get();
    float[] x = s[0];
    float[] y = s[1];
    float[] z = s[2];
    int filled = Math.min(CHUNK, n);
    if (st[0] == 0) {
      Arrays.fill(x, 0, filled, a.get(off[0]));
    }
    if (st[1] == 0) {
      Arrays.fill(y, 0, filled, b.get(off[1]));
    }
    for (int i = 0; i < n; i += CHUNK) {
      int len = Math.min(CHUNK, n - i);
      if (st[0] == 1) {
        a.get(off[0] + i, x, 0, len);
      }
      if (st[1] == 1) {
        b.get(off[1] + i, y, 0, len);
      }
      switch (op) {
        case ADD:
          for (int j = 0; j < len; j++) {
            z[j] = x[j] + y[j];
          }
          break;
        case SUB:
          for (int j = 0; j < len; j++) {
            z[j] = x[j] - y[j];
          }
          break;
        case MUL:
          for (int j = 0; j < len; j++) {
            z[j] = x[j] * y[j];
          }
          break;
        default:
          for (int j = 0; j < len; j++) {
            z[j] = x[j] / y[j];
          }
      }
      o.put(off[2] + i, z, 0, len);
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
    float[][] s = SCRATCH.get();
    float[] x = s[0];
    float[] z = s[2];
    for (int i = 0; i < n; i += CHUNK) {
      int len = Math.min(CHUNK, n - i);
      a.get(off[0] + i, x, 0, len);
      switch (op) {
        case NEG:
          for (int j = 0; j < len; j++) {
            z[j] = -x[j];
          }
          break;
        case ABS:
          for (int j = 0; j < len; j++) {
            z[j] = Math.abs(x[j]);
          }
          break;
        case SQUARE:
          for (int j = 0; j < len; j++) {
            z[j] = x[j] * x[j];
          }
          break;
        case RELU:
          // max(NaN, 0) is NaN and max(-0, 0) is +0, as relu wants; no branch to mispredict.
          for (int j = 0; j < len; j++) {
            z[j] = Math.max(x[j], 0f);
          }
          break;
        case EXP:
          for (int j = 0; j < len; j++) {
            z[j] = (float) Math.exp(x[j]);
          }
          break;
        default:
          for (int j = 0; j < len; j++) {
            z[j] = (float) Math.sqrt(x[j]);
          }
      }
      o.put(off[1] + i, z, 0, len);
    }
    return true;
  }
}
