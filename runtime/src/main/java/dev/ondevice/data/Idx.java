package dev.ondevice.data;

import dev.ondevice.DType;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Reads IDX files, the format of MNIST: a 4-byte magic number (two zero bytes, the element type,
 * the number of dimensions), each dimension as a big-endian unsigned 32-bit integer, then the
 * elements, big-endian, row-major. A file may be gzipped; gzip is recognised by its magic bytes
 * ({@code 1f 8b}), not by the file name.
 *
 * <p>Element types and the tensors they give (this runtime has no 8-, 16- or 32-bit types, so every
 * integer type widens to int64 exactly):
 *
 * <table>
 *   <caption>IDX element types</caption>
 *   <tr><th>code</th><th>IDX type</th><th>tensor dtype</th></tr>
 *   <tr><td>0x08</td><td>unsigned byte</td><td>int64 (0..255)</td></tr>
 *   <tr><td>0x09</td><td>signed byte</td><td>int64</td></tr>
 *   <tr><td>0x0B</td><td>short (16 bits)</td><td>int64</td></tr>
 *   <tr><td>0x0C</td><td>int (32 bits)</td><td>int64</td></tr>
 *   <tr><td>0x0D</td><td>float (32 bits)</td><td>float32</td></tr>
 *   <tr><td>0x0E</td><td>double (64 bits)</td><td>float64</td></tr>
 * </table>
 *
 * <p>Reading is strict: a wrong magic number, an unknown type, zero dimensions, a dimension too
 * large for a tensor, and a file whose length does not match its header exactly (truncated, or with
 * trailing bytes) are errors, {@link IdxFormatException}s that name the file and the problem.
 */
public final class Idx {
  private static final int GZIP_MAGIC_0 = 0x1f;
  private static final int GZIP_MAGIC_1 = 0x8b;

  /** The most bytes asked of a stream at once. */
  private static final int CHUNK = 1 << 16;

  /**
   * The first allocation for a file's data; it doubles as the data arrives, up to the declared
   * size.
   */
  private static final int INITIAL_DATA = 1 << 20;

  private Idx() {}

  /** The element types of IDX files. */
  enum ElementType {
    UNSIGNED_BYTE(0x08, 1, "unsigned byte", DType.INT64),
    SIGNED_BYTE(0x09, 1, "signed byte", DType.INT64),
    SHORT(0x0B, 2, "short", DType.INT64),
    INT(0x0C, 4, "int", DType.INT64),
    FLOAT(0x0D, 4, "float", DType.FLOAT32),
    DOUBLE(0x0E, 8, "double", DType.FLOAT64);

    final int code;
    final int byteSize;
    final String label;

    /** The dtype of the tensor {@link #read} makes of it. */
    final DType tensorDtype;

    ElementType(int code, int byteSize, String label, DType tensorDtype) {
      this.code = code;
      this.byteSize = byteSize;
      this.label = label;
      this.tensorDtype = tensorDtype;
    }

    static ElementType of(int code) {
      for (ElementType t : values()) {
        if (t.code == code) {
          return t;
        }
      }
      return null;
    }

    @Override
    public String toString() {
      return String.format("0x%02X (%s)", code, label);
    }
  }

  /**
   * The contents of an IDX file: its element type, its dimensions and its raw, big-endian elements.
   */
  static final class Contents {
    final ElementType type;
    final int[] dims;
    final byte[] data;

    Contents(ElementType type, int[] dims, byte[] data) {
      this.type = type;
      this.dims = dims;
      this.data = data;
    }

    Shape shape() {
      long[] s = new long[dims.length];
      for (int i = 0; i < s.length; i++) {
        s[i] = dims[i];
      }
      return Shape.of(s);
    }
  }

  /**
   * The tensor stored in {@code file} (plain or gzipped), on the CPU; its dtype follows the table
   * above.
   *
   * @throws IdxFormatException naming the file and what is wrong with it
   * @throws IOException if the file cannot be read
   */
  public static Tensor read(Path file) throws IOException {
    Contents c = readContents(file);
    ByteBuffer data = ByteBuffer.wrap(c.data).order(ByteOrder.BIG_ENDIAN);
    int n = c.data.length / c.type.byteSize;
    // Widened straight into the tensor's memory: no array of the widened values on the heap.
    return Tensor.fromHostBytes(
        c.shape(),
        c.type.tensorDtype,
        b -> {
          switch (c.type) {
            case UNSIGNED_BYTE -> {
              LongBuffer out = b.asLongBuffer();
              for (int i = 0; i < n; i++) {
                out.put(i, c.data[i] & 0xFF);
              }
            }
            case SIGNED_BYTE -> {
              LongBuffer out = b.asLongBuffer();
              for (int i = 0; i < n; i++) {
                out.put(i, c.data[i]);
              }
            }
            case SHORT -> {
              LongBuffer out = b.asLongBuffer();
              for (int i = 0; i < n; i++) {
                out.put(i, data.getShort(2 * i));
              }
            }
            case INT -> {
              LongBuffer out = b.asLongBuffer();
              for (int i = 0; i < n; i++) {
                out.put(i, data.getInt(4 * i));
              }
            }
            case FLOAT -> b.asFloatBuffer().put(data.asFloatBuffer());
            case DOUBLE -> b.asDoubleBuffer().put(data.asDoubleBuffer());
          }
          b.position(b.limit());
        });
  }

  /**
   * Reads and validates {@code file}: the header, then exactly the number of element bytes it
   * declares, then the end of the file.
   */
  static Contents readContents(Path file) throws IOException {
    if (Files.isDirectory(file)) {
      throw new IdxFormatException(
          file, "is a directory, not an IDX file; pass the file inside it");
    }
    try (InputStream in = open(file)) {
      long plainSize = in instanceof GzipStream ? -1 : Files.size(file);
      byte[] magic = readHeaderBytes(file, in, 4, "the 4-byte magic number");
      if (magic[0] != 0 || magic[1] != 0) {
        throw new IdxFormatException(
            file,
            String.format(
                "bad magic number %02x %02x %02x %02x: an IDX file starts"
                    + " with two zero bytes, the element type and the number of dimensions",
                magic[0], magic[1], magic[2], magic[3]));
      }
      ElementType type = ElementType.of(magic[2] & 0xFF);
      if (type == null) {
        throw new IdxFormatException(
            file,
            String.format(
                "unknown element type 0x%02X in the magic number; IDX"
                    + " types are 0x08 (unsigned byte), 0x09 (signed byte), 0x0B (short), 0x0C (int), 0x0D (float) and"
                    + " 0x0E (double)",
                magic[2] & 0xFF));
      }
      int rank = magic[3] & 0xFF;
      if (rank == 0) {
        throw new IdxFormatException(
            file, "the magic number declares 0 dimensions; an IDX file has at least one");
      }
      ByteBuffer header =
          ByteBuffer.wrap(readHeaderBytes(file, in, 4 * rank, "the " + rank + " dimension sizes"))
              .order(ByteOrder.BIG_ENDIAN);
      int[] dims = new int[rank];
      long elements = 1;
      for (int i = 0; i < rank; i++) {
        long d = Integer.toUnsignedLong(header.getInt());
        if (d > Integer.MAX_VALUE) {
          throw new IdxFormatException(
              file,
              "dimension "
                  + i
                  + " has size "
                  + d
                  + ", more than a tensor dimension"
                  + " can hold ("
                  + Integer.MAX_VALUE
                  + ")");
        }
        dims[i] = (int) d;
        elements = multiply(file, elements, d, dims);
      }
      long bytes = multiply(file, elements, type.byteSize, dims);
      long tensorBytes = multiply(file, elements, type.tensorDtype.byteSize(), dims);
      if (tensorBytes > Integer.MAX_VALUE - 8) {
        throw new IdxFormatException(
            file,
            "sizes "
                + Arrays.toString(dims)
                + " of type "
                + type
                + " make a "
                + type.tensorDtype
                + " tensor of "
                + tensorBytes
                + " bytes, more than a tensor of this runtime can hold"
                + " (2 GiB)");
      }
      if (plainSize >= 0) {
        // A plain file's length is known: check it before allocating what the header declares.
        long follow = plainSize - 4 - 4L * rank;
        if (follow != bytes) {
          throw sizeMismatch(file, dims, type, bytes, follow);
        }
      }
      byte[] data = readData(file, in, (int) bytes);
      if (data.length < bytes) {
        throw sizeMismatch(file, dims, type, bytes, data.length);
      }
      if (readByte(file, in) >= 0) {
        throw sizeMismatch(file, dims, type, bytes, bytes + 1);
      }
      return new Contents(type, dims, data);
    }
  }

  private static long multiply(Path file, long a, long b, int[] dims) throws IdxFormatException {
    try {
      return Math.multiplyExact(a, b);
    } catch (ArithmeticException e) {
      throw new IdxFormatException(
          file, "the sizes " + Arrays.toString(dims) + " overflow a 64-bit element count");
    }
  }

  /** The file's bytes, decompressed if it starts with the gzip magic bytes. */
  private static InputStream open(Path file) throws IOException {
    InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
    try {
      raw.mark(2);
      int b0 = raw.read();
      int b1 = raw.read();
      raw.reset();
      if (b0 == GZIP_MAGIC_0 && b1 == GZIP_MAGIC_1) {
        return new GzipStream(new GZIPInputStream(raw, 1 << 16));
      }
      return raw;
    } catch (ZipException | EOFException e) {
      raw.close();
      throw new IdxFormatException(
          file,
          "the file starts like gzip (1f 8b) but its gzip header is invalid: " + e.getMessage(),
          e);
    } catch (IOException | RuntimeException e) {
      raw.close();
      throw e;
    }
  }

  /** The decompressed stream of a gzipped file (whose data length is known only by reading it). */
  private static final class GzipStream extends BufferedInputStream {
    GzipStream(InputStream gzip) {
      super(gzip, 1 << 16);
    }
  }

  private static IdxFormatException sizeMismatch(
      Path file, int[] dims, ElementType type, long bytes, long follow) {
    String declared =
        "the header declares sizes "
            + Arrays.toString(dims)
            + " of type "
            + type
            + ", "
            + bytes
            + " bytes of data, ";
    return follow < bytes
        ? new IdxFormatException(file, "truncated: " + declared + "but only " + follow + " follow")
        : new IdxFormatException(file, "trailing bytes: " + declared + "but more follow");
  }

  /**
   * Up to {@code declared} bytes of data, as many as the stream holds: the array grows with the
   * data that arrives, so that a small gzipped file declaring a gigabyte fails as truncated after
   * reading what it holds, without allocating the gigabyte first.
   */
  private static byte[] readData(Path file, InputStream in, int declared) throws IOException {
    byte[] data = new byte[Math.min(declared, INITIAL_DATA)];
    int total = 0;
    while (true) {
      total += readFully(file, in, data, total);
      if (total < data.length || data.length == declared) {
        return total == data.length ? data : Arrays.copyOf(data, total);
      }
      data = Arrays.copyOf(data, (int) Math.min(declared, 2L * data.length));
    }
  }

  private static byte[] readHeaderBytes(Path file, InputStream in, int n, String what)
      throws IOException {
    byte[] b = new byte[n];
    int read = readFully(file, in, b, 0);
    if (read < n) {
      throw new IdxFormatException(
          file,
          "truncated header: "
              + n
              + " bytes are needed for "
              + what
              + ", only "
              + read
              + " are left");
    }
    return b;
  }

  /**
   * Reads into {@code b} from {@code offset} until it is full or the stream ends, at most {@value
   * #CHUNK} bytes per call: a larger request to a file's stream is read through a temporary direct
   * buffer of its size, which the JDK keeps per thread. Returns the number of bytes read.
   */
  private static int readFully(Path file, InputStream in, byte[] b, int offset) throws IOException {
    int total = offset;
    try {
      while (total < b.length) {
        int n = in.read(b, total, Math.min(CHUNK, b.length - total));
        if (n < 0) {
          break;
        }
        total += n;
      }
      return total - offset;
    } catch (ZipException | EOFException e) {
      throw corruptGzip(file, e);
    }
  }

  private static int readByte(Path file, InputStream in) throws IOException {
    try {
      return in.read();
    } catch (ZipException | EOFException e) {
      throw corruptGzip(file, e);
    }
  }

  private static IdxFormatException corruptGzip(Path file, IOException e) {
    return new IdxFormatException(
        file, "the gzip stream is truncated or corrupt (" + e.getMessage() + ")", e);
  }
}
