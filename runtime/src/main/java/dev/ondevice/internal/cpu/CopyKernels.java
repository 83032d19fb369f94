package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.Strided;
import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;

/** Fill and strided copy (with dtype conversion) on host memory. */
public final class CopyKernels {
  private CopyKernels() {}

  /** Writes {@code value} to every element of {@code out}. */
  public static void fill(Strided out, double value) {
    HostStorage s = out.host();
    Loops.Row row;
    switch (out.dtype()) {
      case FLOAT32 -> {
        FloatBuffer o = s.floats();
        float v = (float) value;
        row =
            (n, off, st) -> {
              for (int i = 0, p = off[0], d = st[0]; i < n; i++, p += d) {
                o.put(p, v);
              }
            };
      }
      case FLOAT64 -> {
        DoubleBuffer o = s.doubles();
        row =
            (n, off, st) -> {
              for (int i = 0, p = off[0], d = st[0]; i < n; i++, p += d) {
                o.put(p, value);
              }
            };
      }
      case INT64 -> {
        LongBuffer o = s.longs();
        long v = (long) value;
        row =
            (n, off, st) -> {
              for (int i = 0, p = off[0], d = st[0]; i < n; i++, p += d) {
                o.put(p, v);
              }
            };
      }
      default -> {
        ByteBuffer o = s.bytes();
        byte v = (byte) (value != 0 ? 1 : 0);
        row =
            (n, off, st) -> {
              for (int i = 0, p = off[0], d = st[0]; i < n; i++, p += d) {
                o.put(p, v);
              }
            };
      }
    }
    Loops.forEach(out.sizes(), new int[][] {out.strides()}, new int[] {out.offset()}, row);
  }

  /** Copies {@code from} into {@code to} element by element (equal sizes), converting the dtype. */
  public static void copy(Strided from, Strided to) {
    if (from.dtype() == to.dtype() && from.isContiguous() && to.isContiguous()) {
      copyBytes(from, to);
      return;
    }
    Loops.forEach(
        to.sizes(),
        new int[][] {from.strides(), to.strides()},
        new int[] {from.offset(), to.offset()},
        copyRow(from, to));
  }

  private static void copyBytes(Strided from, Strided to) {
    int es = from.dtype().byteSize();
    ByteBuffer src = from.host().bytes();
    ByteBuffer dst = to.host().bytes();
    int srcStart = from.offset() * es;
    int dstStart = to.offset() * es;
    int total = from.numel() * es;
    Parallel.forRange(total, 1 << 20, (a, b) -> dst.put(dstStart + a, src, srcStart + a, b - a));
  }

  private static Loops.Row copyRow(Strided from, Strided to) {
    HostStorage fs = from.host();
    HostStorage ts = to.host();
    ScalarType ft = from.dtype();
    ScalarType tt = to.dtype();
    if (ft == tt) {
      switch (ft) {
        case FLOAT32 -> {
          FloatBuffer a = fs.floats();
          FloatBuffer o = ts.floats();
          return (n, off, st) -> {
            if (st[0] == 1 && st[1] == 1) {
              o.put(off[1], a, off[0], n);
              return;
            }
            for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
                i < n;
                i++, p += sp, q += sq) {
              o.put(q, a.get(p));
            }
          };
        }
        case FLOAT64 -> {
          DoubleBuffer a = fs.doubles();
          DoubleBuffer o = ts.doubles();
          return (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
                i < n;
                i++, p += sp, q += sq) {
              o.put(q, a.get(p));
            }
          };
        }
        case INT64 -> {
          LongBuffer a = fs.longs();
          LongBuffer o = ts.longs();
          return (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
                i < n;
                i++, p += sp, q += sq) {
              o.put(q, a.get(p));
            }
          };
        }
        default -> {
          ByteBuffer a = fs.bytes();
          ByteBuffer o = ts.bytes();
          return (n, off, st) -> {
            for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
                i < n;
                i++, p += sp, q += sq) {
              o.put(q, a.get(p));
            }
          };
        }
      }
    }
    if (ft == ScalarType.FLOAT32 && tt == ScalarType.FLOAT64) {
      FloatBuffer a = fs.floats();
      DoubleBuffer o = ts.doubles();
      return (n, off, st) -> {
        for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
            i < n;
            i++, p += sp, q += sq) {
          o.put(q, a.get(p));
        }
      };
    }
    if (ft == ScalarType.FLOAT64 && tt == ScalarType.FLOAT32) {
      DoubleBuffer a = fs.doubles();
      FloatBuffer o = ts.floats();
      return (n, off, st) -> {
        for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
            i < n;
            i++, p += sp, q += sq) {
          o.put(q, (float) a.get(p));
        }
      };
    }
    if (tt == ScalarType.BOOL) {
      return (n, off, st) -> {
        for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
            i < n;
            i++, p += sp, q += sq) {
          ts.bytes().put(q, (byte) (Elements.getBool(fs, ft, p) ? 1 : 0));
        }
      };
    }
    if (ft == ScalarType.INT64 || tt == ScalarType.INT64) {
      return (n, off, st) -> {
        for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
            i < n;
            i++, p += sp, q += sq) {
          Elements.setLong(ts, tt, q, Elements.getLong(fs, ft, p));
        }
      };
    }
    return (n, off, st) -> {
      for (int i = 0, p = off[0], q = off[1], sp = st[0], sq = st[1];
          i < n;
          i++, p += sp, q += sq) {
        Elements.setDouble(ts, tt, q, Elements.getDouble(fs, ft, p));
      }
    };
  }
}
