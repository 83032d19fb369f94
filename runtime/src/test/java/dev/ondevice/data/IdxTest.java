package dev.ondevice.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.DType;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** IDX files written byte by byte here, plain and gzipped: every element type, and bad files. */
class IdxTest {
  @TempDir Path dir;

  /** The header of an IDX file: two zero bytes, the type, the rank, then the sizes, big-endian. */
  static byte[] header(int type, int... dims) {
    ByteBuffer b = ByteBuffer.allocate(4 + 4 * dims.length).order(ByteOrder.BIG_ENDIAN);
    b.put((byte) 0).put((byte) 0).put((byte) type).put((byte) dims.length);
    for (int d : dims) {
      b.putInt(d);
    }
    return b.array();
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  static byte[] gzip(byte[] bytes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(bytes);
    }
    return out.toByteArray();
  }

  private Path write(String name, byte[] bytes) throws IOException {
    return Files.write(dir.resolve(name), bytes);
  }

  /** Reads {@code bytes} from a plain file and, gzipped, from a file named without {@code .gz}. */
  private Tensor[] readBoth(byte[] bytes) throws IOException {
    Tensor plain = Idx.read(write("plain.idx", bytes));
    Tensor gzipped = Idx.read(write("gzipped-without-extension.idx", gzip(bytes)));
    return new Tensor[] {plain, gzipped};
  }

  private static ByteBuffer data(int bytes) {
    return ByteBuffer.allocate(bytes).order(ByteOrder.BIG_ENDIAN);
  }

  /** Every byte of {@code data}, from index 0 to its capacity. */
  private static byte[] bytesOf(ByteBuffer data) {
    byte[] bytes = new byte[data.capacity()];
    data.get(0, bytes);
    return bytes;
  }

  // ---------------------------------------------------------------- element types

  @Test
  void unsignedBytesBecomeInt64From0To255() throws IOException {
    byte[] file =
        concat(header(0x08, 2, 3), new byte[] {0, 1, 127, (byte) 128, (byte) 200, (byte) 255});
    for (Tensor t : readBoth(file)) {
      assertEquals(DType.INT64, t.dtype());
      assertEquals(Shape.of(2, 3), t.shape());
      assertArrayEquals(new long[] {0, 1, 127, 128, 200, 255}, t.toLongArray());
    }
  }

  @Test
  void signedBytesKeepTheirSign() throws IOException {
    byte[] file = concat(header(0x09, 4), new byte[] {-128, -1, 0, 127});
    for (Tensor t : readBoth(file)) {
      assertEquals(DType.INT64, t.dtype());
      assertArrayEquals(new long[] {-128, -1, 0, 127}, t.toLongArray());
    }
  }

  @Test
  void shortsAreBigEndian() throws IOException {
    ByteBuffer d =
        data(8)
            .putShort((short) -32768)
            .putShort((short) -2)
            .putShort((short) 258)
            .putShort((short) 32767);
    for (Tensor t : readBoth(concat(header(0x0B, 2, 2), bytesOf(d)))) {
      assertEquals(DType.INT64, t.dtype());
      assertArrayEquals(new long[] {-32768, -2, 258, 32767}, t.toLongArray());
    }
  }

  @Test
  void intsAreBigEndian() throws IOException {
    ByteBuffer d = data(12).putInt(Integer.MIN_VALUE).putInt(0x01020304).putInt(Integer.MAX_VALUE);
    for (Tensor t : readBoth(concat(header(0x0C, 3, 1), bytesOf(d)))) {
      assertEquals(DType.INT64, t.dtype());
      assertEquals(Shape.of(3, 1), t.shape());
      assertArrayEquals(
          new long[] {Integer.MIN_VALUE, 0x01020304, Integer.MAX_VALUE}, t.toLongArray());
    }
  }

  @Test
  void floatsBecomeFloat32() throws IOException {
    float[] values = {
      1.5f, -0f, Float.MIN_VALUE, Float.MAX_VALUE, Float.NEGATIVE_INFINITY, Float.NaN
    };
    ByteBuffer d = data(4 * values.length);
    for (float v : values) {
      d.putFloat(v);
    }
    for (Tensor t : readBoth(concat(header(0x0D, 1, 2, 3), bytesOf(d)))) {
      assertEquals(DType.FLOAT32, t.dtype());
      assertEquals(Shape.of(1, 2, 3), t.shape());
      float[] got = t.toFloatArray();
      for (int i = 0; i < values.length; i++) {
        assertEquals(Float.floatToIntBits(values[i]), Float.floatToIntBits(got[i]), "element " + i);
      }
    }
  }

  @Test
  void doublesBecomeFloat64() throws IOException {
    double[] values = {Math.PI, -1e300, Double.MIN_VALUE};
    ByteBuffer d = data(8 * values.length);
    for (double v : values) {
      d.putDouble(v);
    }
    for (Tensor t : readBoth(concat(header(0x0E, 3), bytesOf(d)))) {
      assertEquals(DType.FLOAT64, t.dtype());
      assertArrayEquals(values, t.toDoubleArray());
    }
  }

  @Test
  void emptyTensorsAndGzipDetectionByContent() throws IOException {
    Tensor empty = Idx.read(write("empty.idx", header(0x08, 0, 28)));
    assertEquals(Shape.of(0, 28), empty.shape());
    // A plain file named .gz is read as plain: the magic bytes decide.
    Tensor t = Idx.read(write("not-really.gz", concat(header(0x08, 2), new byte[] {3, 4})));
    assertArrayEquals(new long[] {3, 4}, t.toLongArray());
  }

  // ---------------------------------------------------------------- bad files

  private void assertBad(byte[] bytes, String... fragments) throws IOException {
    Path file = write("bad-" + Arrays.hashCode(bytes) + ".idx", bytes);
    IdxFormatException e = assertThrows(IdxFormatException.class, () -> Idx.read(file));
    assertTrue(
        e.getMessage().startsWith(file.toString() + ": "), "names the file: " + e.getMessage());
    assertEquals(file, e.file());
    for (String f : fragments) {
      assertTrue(e.getMessage().contains(f), "'" + f + "' in: " + e.getMessage());
    }
  }

  @Test
  void anEmptyOrShortFileHasATruncatedHeader() throws IOException {
    assertBad(new byte[0], "truncated header", "magic");
    assertBad(new byte[] {0, 0, 8}, "truncated header", "only 3");
    assertBad(
        Arrays.copyOf(header(0x08, 60000, 28, 28), 10), "truncated header", "3 dimension sizes");
  }

  @Test
  void aWrongMagicNumberIsRejected() throws IOException {
    assertBad(concat(new byte[] {'P', 'K', 3, 4}, new byte[16]), "bad magic number 50 4b 03 04");
    assertBad(concat(header(0x0A, 2), new byte[8]), "unknown element type 0x0A");
    assertBad(header(0x08), "0 dimensions");
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void truncatedDataIsReported(boolean gzipped) throws IOException {
    byte[] file = concat(header(0x0C, 2, 3), new byte[20]);
    assertBad(
        gzipped ? gzip(file) : file,
        "truncated",
        "sizes [2, 3] of type 0x0C (int)",
        "24 bytes of data",
        "only 20 follow");
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void trailingBytesAreReported(boolean gzipped) throws IOException {
    byte[] file = concat(header(0x08, 2), new byte[] {1, 2, 3});
    assertBad(gzipped ? gzip(file) : file, "trailing bytes", "2 bytes of data");
  }

  @Test
  void aHugeDimensionIsReported() throws IOException {
    assertBad(header(0x08, -1), "dimension 0 has size 4294967295");
    assertBad(header(0x0E, 65536, 65536), "more than a tensor of this runtime can hold");
  }

  @Test
  void aCutOrCorruptGzipStreamIsReported() throws IOException {
    byte[] good = gzip(concat(header(0x08, 1000), new byte[1000]));
    assertBad(Arrays.copyOf(good, good.length - 12), "gzip stream is truncated or corrupt");
    byte[] badCrc = good.clone();
    badCrc[badCrc.length - 6] ^= 0x55;
    assertBad(badCrc, "gzip stream is truncated or corrupt");
    assertBad(new byte[] {0x1f, (byte) 0x8b, 1, 2, 3}, "gzip");
  }

  @Test
  void aMissingFileIsAnIoError() {
    assertThrows(java.nio.file.NoSuchFileException.class, () -> Idx.read(dir.resolve("nope.idx")));
  }
}
