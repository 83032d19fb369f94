package dev.ondevice.io;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ondevice.Cuda;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The safetensors format: files assembled byte by byte here are read, the writer produces exactly
 * the reference's bytes, every dtype round-trips, and every malformed file is rejected with a
 * message naming the file and the problem.
 */
class SafetensorsTest {
  @TempDir Path dir;

  // ---------------------------------------------------------------- a hand-made encoder

  /**
   * A safetensors file assembled by hand: the header length as 8 little-endian bytes, the header
   * text exactly as given (padding included), then the data bytes.
   */
  static byte[] handMade(String header, byte[]... data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] h = header.getBytes(UTF_8);
    long n = h.length;
    for (int i = 0; i < 8; i++) {
      out.write((int) (n >>> (8 * i)) & 0xFF);
    }
    out.writeBytes(h);
    for (byte[] d : data) {
      out.writeBytes(d);
    }
    return out.toByteArray();
  }

  /** The header text padded with spaces to a multiple of 8 bytes, as the reference writer does. */
  static String padded(String json) {
    StringBuilder sb = new StringBuilder(json);
    while (sb.toString().getBytes(UTF_8).length % 8 != 0) {
      sb.append(' ');
    }
    return sb.toString();
  }

  /** Little-endian bytes of {@code bits}, {@code width} bytes each. */
  static byte[] le(int width, long... bits) {
    byte[] out = new byte[width * bits.length];
    for (int i = 0; i < bits.length; i++) {
      for (int b = 0; b < width; b++) {
        out[width * i + b] = (byte) (bits[i] >>> (8 * b));
      }
    }
    return out;
  }

  static byte[] f32(float... v) {
    long[] bits = new long[v.length];
    for (int i = 0; i < v.length; i++) {
      bits[i] = Float.floatToRawIntBits(v[i]);
    }
    return le(4, bits);
  }

  static byte[] f64(double... v) {
    long[] bits = new long[v.length];
    for (int i = 0; i < v.length; i++) {
      bits[i] = Double.doubleToRawLongBits(v[i]);
    }
    return le(8, bits);
  }

  private Path file(String name, byte[] bytes) throws IOException {
    return Files.write(dir.resolve(name), bytes);
  }

  @Test
  void readsAFileAssembledByHand() throws IOException {
    // Entries deliberately not in offset order, extra whitespace, metadata in the middle.
    String json =
        """
        { "weight": {"dtype": "F32", "shape": [2, 2], "data_offsets": [16, 32]},
          "__metadata__": {"format": "pt", "note": "caf\u00e9 \\"q\\" \\u00e9"},
          "step": {"dtype": "I64", "shape": [], "data_offsets": [0, 8]},
          "ids": {"dtype": "I64", "shape": [1], "data_offsets": [8, 16]},
          "scale": {"dtype": "F64", "shape": [1], "data_offsets": [32, 40]},
          "mask": {"dtype": "BOOL", "shape": [3], "data_offsets": [40, 43]},
          "nothing": {"dtype": "F32", "shape": [2, 0], "data_offsets": [43, 43]}}""";
    byte[] bytes =
        handMade(
            padded(json),
            le(8, 42),
            le(8, -7),
            f32(1, -2, 0.5f, 3e38f),
            f64(Math.E),
            new byte[] {1, 0, 1});
    Safetensors.Contents c = Safetensors.load(file("hand.safetensors", bytes));

    assertEquals(
        List.of("step", "ids", "weight", "scale", "mask", "nothing"),
        new ArrayList<>(c.tensors().keySet()),
        "tensors come in the order of their data");
    Tensor step = c.tensors().get("step");
    assertEquals(Shape.scalar(), step.shape());
    assertEquals(DType.INT64, step.dtype());
    assertEquals(42, step.itemAsLong());
    assertArrayEquals(new long[] {-7}, c.tensors().get("ids").toLongArray());
    Tensor weight = c.tensors().get("weight");
    assertEquals(Shape.of(2, 2), weight.shape());
    assertEquals(Device.cpu(), weight.device());
    assertArrayEquals(new float[] {1, -2, 0.5f, 3e38f}, weight.toFloatArray());
    assertArrayEquals(new double[] {Math.E}, c.tensors().get("scale").toDoubleArray());
    assertEquals(DType.BOOL, c.tensors().get("mask").dtype());
    assertArrayEquals(new boolean[] {true, false, true}, c.tensors().get("mask").toBooleanArray());
    assertEquals(Shape.of(2, 0), c.tensors().get("nothing").shape());
    assertEquals(Map.of("format", "pt", "note", "caf\u00e9 \"q\" \u00e9"), c.metadata());
    assertEquals("F32", c.fileDtype("weight"));
  }

  @Test
  void readsTheReferenceTestVectors() throws IOException {
    // From the reference's own tests: a header padded with spaces, and leading whitespace.
    Safetensors.Contents c =
        Safetensors.deserialize(
            handMade(
                "{\"test\":{\"dtype\":\"I32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}",
                new byte[16]));
    assertArrayEquals(new long[] {0, 0, 0, 0}, c.tensors().get("test").toLongArray());
    assertEquals("I32", c.fileDtype("test"));
    assertTrue(Safetensors.deserialize(handMade("{}\r \t\n")).tensors().isEmpty());
    assertTrue(Safetensors.deserialize(handMade("\t\n{}\r ")).tensors().isEmpty());
    Safetensors.Contents scalar =
        Safetensors.deserialize(
            handMade(
                "{\"test\":{\"dtype\":\"I32\",\"shape\":[],\"data_offsets\":[0,4]}}", le(4, -5)));
    assertEquals(-5, scalar.tensors().get("test").itemAsLong());
  }

  @Test
  void readsNarrowDtypesWidenedExactly() throws IOException {
    String json =
        "{\"h\":{\"dtype\":\"F16\",\"shape\":[7],\"data_offsets\":[0,14]},"
            + "\"b\":{\"dtype\":\"BF16\",\"shape\":[3],\"data_offsets\":[14,20]},"
            + "\"i32\":{\"dtype\":\"I32\",\"shape\":[2],\"data_offsets\":[20,28]},"
            + "\"u32\":{\"dtype\":\"U32\",\"shape\":[1],\"data_offsets\":[28,32]},"
            + "\"i16\":{\"dtype\":\"I16\",\"shape\":[2],\"data_offsets\":[32,36]},"
            + "\"u16\":{\"dtype\":\"U16\",\"shape\":[1],\"data_offsets\":[36,38]},"
            + "\"i8\":{\"dtype\":\"I8\",\"shape\":[2],\"data_offsets\":[38,40]},"
            + "\"u8\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[40,42]}}";
    byte[] bytes =
        handMade(
            padded(json),
            // F16: 1, -2, 65504 (max), 2^-24 (smallest subnormal), -0, inf, NaN
            le(2, 0x3C00, 0xC000, 0x7BFF, 0x0001, 0x8000, 0x7C00, 0x7E00),
            // BF16: 1, -3.5, 2^100
            le(2, 0x3F80, 0xC060, 0x7180),
            le(4, -2147483648L, 7),
            le(4, 0xFFFFFFFFL),
            le(2, -32768, 5),
            le(2, 0xFFFF),
            new byte[] {-128, 127},
            new byte[] {(byte) 255, 0});
    Safetensors.Contents c = Safetensors.deserialize(bytes);
    float[] h = c.tensors().get("h").toFloatArray();
    assertEquals(DType.FLOAT32, c.tensors().get("h").dtype());
    assertEquals(1f, h[0]);
    assertEquals(-2f, h[1]);
    assertEquals(65504f, h[2]);
    assertEquals(0x1p-24f, h[3]);
    assertEquals(Float.floatToIntBits(-0f), Float.floatToIntBits(h[4]));
    assertEquals(Float.POSITIVE_INFINITY, h[5]);
    assertTrue(Float.isNaN(h[6]));
    assertArrayEquals(new float[] {1f, -3.5f, 0x1p100f}, c.tensors().get("b").toFloatArray());
    assertEquals(DType.INT64, c.tensors().get("i32").dtype());
    assertArrayEquals(new long[] {Integer.MIN_VALUE, 7}, c.tensors().get("i32").toLongArray());
    assertArrayEquals(new long[] {4294967295L}, c.tensors().get("u32").toLongArray());
    assertArrayEquals(new long[] {-32768, 5}, c.tensors().get("i16").toLongArray());
    assertArrayEquals(new long[] {65535}, c.tensors().get("u16").toLongArray());
    assertArrayEquals(new long[] {-128, 127}, c.tensors().get("i8").toLongArray());
    assertArrayEquals(new long[] {255, 0}, c.tensors().get("u8").toLongArray());
    assertEquals("BF16", c.fileDtype("b"));
    assertEquals("U8", c.fileDtype("u8"));
    assertThrows(IllegalArgumentException.class, () -> c.fileDtype("missing"));
  }

  @Test
  void everyHalfPrecisionValueWidensAsTheStandardSays() {
    for (int bits = 0; bits < 0x10000; bits++) {
      float f = Safetensors.halfToFloat((short) bits);
      int exponent = (bits >>> 10) & 0x1F;
      int mantissa = bits & 0x3FF;
      double magnitude =
          exponent == 0
              ? mantissa * Math.pow(2, -24)
              : exponent == 31
                  ? (mantissa == 0 ? Double.POSITIVE_INFINITY : Double.NaN)
                  : (1 + mantissa / 1024.0) * Math.pow(2, exponent - 15);
      double expected = (bits & 0x8000) != 0 ? -magnitude : magnitude;
      if (Double.isNaN(expected)) {
        assertTrue(Float.isNaN(f), Integer.toHexString(bits));
      } else {
        assertEquals(expected, f, 0.0, Integer.toHexString(bits));
      }
    }
  }

  // ---------------------------------------------------------------- the writer's exact bytes

  @Test
  void writesExactlyTheReferenceBytes() {
    // The reference's test_serialization: attn.0, F32, shape [1, 2, 3], values 0..5.
    byte[] expected = {
      64,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      123,
      34,
      97,
      116,
      116,
      110,
      46,
      48,
      34,
      58,
      123,
      34,
      100,
      116,
      121,
      112,
      101,
      34,
      58,
      34,
      70,
      51,
      50,
      34,
      44,
      34,
      115,
      104,
      97,
      112,
      101,
      34,
      58,
      91,
      49,
      44,
      50,
      44,
      51,
      93,
      44,
      34,
      100,
      97,
      116,
      97,
      95,
      111,
      102,
      102,
      115,
      101,
      116,
      115,
      34,
      58,
      91,
      48,
      44,
      50,
      52,
      93,
      125,
      125,
      0,
      0,
      0,
      0,
      0,
      0,
      (byte) 128,
      63,
      0,
      0,
      0,
      64,
      0,
      0,
      64,
      64,
      0,
      0,
      (byte) 128,
      64,
      0,
      0,
      (byte) 160,
      64
    };
    Tensor t = Tensor.of(new float[] {0, 1, 2, 3, 4, 5}, 1, 2, 3);
    assertArrayEquals(expected, Safetensors.serialize(Map.of("attn.0", t), null));

    // test_serialization_forced_alignement: a shorter name, padded with 7 spaces.
    byte[] aligned = Safetensors.serialize(Map.of("attn0", t.reshape(1, 1, 2, 3)), null);
    assertArrayEquals(
        handMade(
            "{\"attn0\":{\"dtype\":\"F32\",\"shape\":[1,1,2,3],\"data_offsets\":[0,24]}}       ",
            f32(0, 1, 2, 3, 4, 5)),
        aligned);
    assertEquals(72, aligned[0]);

    // test_empty: no tensors, with and without metadata.
    assertArrayEquals(
        new byte[] {8, 0, 0, 0, 0, 0, 0, 0, 123, 125, 32, 32, 32, 32, 32, 32},
        Safetensors.serialize(Map.of(), null));
    assertArrayEquals(
        handMade("{\"__metadata__\":{\"framework\":\"pt\"}}     "),
        Safetensors.serialize(Map.of(), Map.of("framework", "pt")));
  }

  @Test
  void ordersTensorsByDescendingDtypeThenNameAsTheReference() {
    Map<String, Tensor> tensors = new LinkedHashMap<>();
    tensors.put("a", Tensor.of(1f));
    tensors.put("c", Tensor.of(true, false));
    tensors.put("b", Tensor.of(5L));
    tensors.put("d", Tensor.of(2.5));
    tensors.put("aa", Tensor.of(3f));
    Map<String, String> metadata = new LinkedHashMap<>();
    metadata.put("z", "last");
    metadata.put("a", "first");
    String json =
        "{\"__metadata__\":{\"a\":\"first\",\"z\":\"last\"},"
            + "\"b\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]},"
            + "\"d\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[8,16]},"
            + "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[16,20]},"
            + "\"aa\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[20,24]},"
            + "\"c\":{\"dtype\":\"BOOL\",\"shape\":[2],\"data_offsets\":[24,26]}}";
    byte[] expected = handMade(padded(json), le(8, 5), f64(2.5), f32(1), f32(3), new byte[] {1, 0});
    assertArrayEquals(expected, Safetensors.serialize(tensors, metadata));
  }

  @Test
  void namesAreOrderedByCodePointAndEscapedAsSerdeJson() throws IOException {
    Map<String, Tensor> tensors = new LinkedHashMap<>();
    String emoji = "\uD83D\uDE00"; // U+1F600: after U+FF61 by code point, before it in UTF-16
    String halfwidth = "\uFF61";
    String tricky = "q\"b\\n\nt\t\u0001\u007f\u00e9/";
    tensors.put(emoji, Tensor.of(1f));
    tensors.put(halfwidth, Tensor.of(2f));
    tensors.put(tricky, Tensor.of(3f));
    byte[] bytes = Safetensors.serialize(tensors, Map.of("k\u001f", "v\b\f\r"));
    String json =
        "{\"__metadata__\":{\"k\\u001f\":\"v\\b\\f\\r\"},"
            + "\"q\\\"b\\\\n\\nt\\t\\u0001\u007f\u00e9/\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
            + "\""
            + halfwidth
            + "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]},"
            + "\""
            + emoji
            + "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}";
    assertArrayEquals(handMade(padded(json), f32(3, 2, 1)), bytes);

    Safetensors.Contents back = Safetensors.deserialize(bytes);
    assertEquals(List.of(tricky, halfwidth, emoji), new ArrayList<>(back.tensors().keySet()));
    assertEquals(Map.of("k\u001f", "v\b\f\r"), back.metadata());
  }

  // ---------------------------------------------------------------- round trips

  @Test
  void everyDtypeRoundTripsThroughAFile() throws IOException {
    Map<String, Tensor> tensors = new LinkedHashMap<>();
    tensors.put(
        "f32",
        Tensor.of(new float[] {1.5f, -0f, Float.NaN, Float.MIN_VALUE, Float.MAX_VALUE, -3}, 2, 3));
    tensors.put("f64", Tensor.of(new double[] {Math.PI, Double.NEGATIVE_INFINITY, 1e-310}, 3, 1));
    tensors.put("i64", Tensor.of(new long[] {Long.MIN_VALUE, -1, 0, Long.MAX_VALUE}, 2, 2));
    tensors.put("bool", Tensor.of(new boolean[] {true, false, false, true, true, false}, 3, 2));
    tensors.put("scalar", Tensor.scalar(2.25));
    tensors.put("empty", Tensor.zeros(Shape.of(0, 4), DType.INT64, Device.cpu()));
    tensors.put("big", Tensor.randn(700, 500));
    Path file = dir.resolve("all.safetensors");
    Safetensors.save(tensors, Map.of("epoch", "3"), file);

    Safetensors.Contents back = Safetensors.load(file);
    assertEquals(tensors.keySet(), back.tensors().keySet());
    for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
      Tensor t = back.tensors().get(e.getKey());
      assertEquals(e.getValue().dtype(), t.dtype(), e.getKey());
      assertEquals(e.getValue().shape(), t.shape(), e.getKey());
      assertEquals(Device.cpu(), t.device());
    }
    float[] f = back.tensors().get("f32").toFloatArray();
    float[] original = tensors.get("f32").toFloatArray();
    for (int i = 0; i < f.length; i++) {
      assertEquals(
          Float.floatToRawIntBits(original[i]),
          Float.floatToRawIntBits(f[i]),
          "bit-exact f32[" + i + "]");
    }
    assertArrayEquals(
        tensors.get("f64").toDoubleArray(), back.tensors().get("f64").toDoubleArray());
    assertArrayEquals(tensors.get("i64").toLongArray(), back.tensors().get("i64").toLongArray());
    assertArrayEquals(
        tensors.get("bool").toBooleanArray(), back.tensors().get("bool").toBooleanArray());
    assertEquals(2.25f, back.tensors().get("scalar").item());
    assertArrayEquals(tensors.get("big").toFloatArray(), back.tensors().get("big").toFloatArray());
    assertEquals(Map.of("epoch", "3"), back.metadata());
    assertEquals(List.of("all.safetensors"), listDir(), "no temporary file is left");
    long headerLength = Files.size(file) - (8 + 4 * (6 + 700 * 500) + 8 * 3 + 8 * 4 + 6 + 4);
    assertEquals(0, headerLength % 8, "the data starts 8-byte aligned");
  }

  @Test
  void writesDeviceTensorsAndViewsRowMajor() throws IOException {
    assumeTrue(
        Cuda.deviceCount() >= 1, "needs an emulated cuda:0 (-Dondevice.emulatedCudaDevices=2)");
    Tensor m = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
    Map<String, Tensor> tensors = Map.of("t", m.t(), "cuda", m.to(Device.cuda(0)).mul(2.0));
    Safetensors.Contents back = Safetensors.deserialize(Safetensors.serialize(tensors, null));
    assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, back.tensors().get("t").toFloatArray());
    assertEquals(Shape.of(3, 2), back.tensors().get("t").shape());
    assertArrayEquals(new float[] {2, 4, 6, 8, 10, 12}, back.tensors().get("cuda").toFloatArray());
    assertEquals(Device.cpu(), back.tensors().get("cuda").device());
  }

  private List<String> listDir() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  @Test
  void theWriterRejectsWhatTheFormatCannotHold() {
    Tensor t = Tensor.of(1f);
    IllegalArgumentException reserved =
        assertThrows(
            IllegalArgumentException.class,
            () -> Safetensors.serialize(Map.of("__metadata__", t), null));
    assertTrue(reserved.getMessage().contains("reserved"), reserved.getMessage());
    Map<String, Tensor> nullTensor = new LinkedHashMap<>();
    nullTensor.put("x", null);
    assertThrows(IllegalArgumentException.class, () -> Safetensors.serialize(nullTensor, null));
    IllegalArgumentException surrogate =
        assertThrows(
            IllegalArgumentException.class,
            () -> Safetensors.serialize(Map.of("bad\uD800", t), null));
    assertTrue(surrogate.getMessage().contains("unpaired surrogate"), surrogate.getMessage());
    Map<String, String> nullValue = new LinkedHashMap<>();
    nullValue.put("k", null);
    assertThrows(IllegalArgumentException.class, () -> Safetensors.serialize(Map.of(), nullValue));
  }

  // ---------------------------------------------------------------- validation

  private static final String GOOD =
      "{\"test\":{\"dtype\":\"I32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}";

  /**
   * Writes {@code bytes} to a file and checks that reading it fails, naming the file and each
   * fragment.
   */
  private void assertRejected(byte[] bytes, String... fragments) throws IOException {
    Path file = file("bad.safetensors", bytes);
    SafetensorsException e = assertThrows(SafetensorsException.class, () -> Safetensors.load(file));
    assertTrue(e.getMessage().startsWith(file + ": "), "names the file: " + e.getMessage());
    assertEquals(file.toString(), e.source());
    for (String f : fragments) {
      assertTrue(e.getMessage().contains(f), "'" + f + "' in: " + e.getMessage());
    }
    SafetensorsException inMemory =
        assertThrows(SafetensorsException.class, () -> Safetensors.deserialize(bytes));
    assertTrue(inMemory.getMessage().startsWith("<bytes>: "), inMemory.getMessage());
  }

  @Test
  void headerLengthProblems() throws IOException {
    assertRejected(new byte[0], "header too small", "0 bytes");
    assertRejected(new byte[] {8, 0, 0}, "header too small");
    byte[] tooLarge = handMade(GOOD, new byte[16]);
    tooLarge[5] = (byte) 0xff;
    tooLarge[6] = (byte) 0xff;
    tooLarge[7] = (byte) 0xff;
    assertRejected(tooLarge, "header too large", "100000000");
    byte[] justOver = handMade("{}");
    justOver[0] = 0x01;
    justOver[1] = (byte) 0xe1;
    justOver[2] = (byte) 0xf5;
    justOver[3] = 0x05; // 100,000,001
    assertRejected(justOver, "header too large");
    assertRejected(le(8, 60), "invalid header length", "60 bytes", "only 0 follow");
    assertRejected(
        new byte[] {
          (byte) 0xff,
          (byte) 0xff,
          (byte) 0xff,
          (byte) 0xff,
          (byte) 0xff,
          (byte) 0xff,
          (byte) 0xff,
          (byte) 0xff
        },
        "header too large",
        "18446744073709551615");
  }

  @Test
  void headerContentProblems() throws IOException {
    assertRejected(handMade("\u00ff"), "not valid JSON");
    byte[] notUtf8 = handMade("{\"a\":1}");
    notUtf8[10] = (byte) 0xff;
    assertRejected(notUtf8, "not valid UTF-8");
    assertRejected(handMade("{"), "not valid JSON");
    assertRejected(handMade("[]      "), "must be a JSON object", "an array");
    assertRejected(handMade("{\"__metadata__\":{\"a\":\"1\",}}"), "not valid JSON");
    assertRejected(handMade("{} x"), "not valid JSON", "Unrecognized token 'x'");
    assertRejected(
        handMade(
            "{\"test\":{\"dtype\":\"I32\",\"shape\":[],\"data_offsets\":[0,4]},"
                + "\"test\":{\"dtype\":\"I32\",\"shape\":[],\"data_offsets\":[4,8]}}",
            new byte[8]),
        "duplicate key \"test\"");
    assertRejected(handMade("{\"__metadata__\":{\"a\":\"1\",\"a\":\"2\"}}"), "duplicate key \"a\"");
    assertRejected(
        handMade("{\"__metadata__\":{\"epoch\":3}}"),
        "__metadata__ must map strings to strings",
        "'epoch' is a number");
    assertRejected(handMade("{\"__metadata__\":[\"a\"]}"), "__metadata__ must be an object");
    assertRejected(
        handMade("{\"t\":{\"x\":" + "[".repeat(200) + "]".repeat(200) + "}}"),
        "nesting depth (129) exceeds the" + " maximum allowed (128");
  }

  @Test
  void tensorEntryProblems() throws IOException {
    assertRejected(
        handMade("{\"t\":{\"dtype\":\"F17\",\"shape\":[1],\"data_offsets\":[0,4]}}", new byte[4]),
        "tensor 't'",
        "unknown dtype \"F17\"");
    assertRejected(
        handMade("{\"t\":{\"shape\":[1],\"data_offsets\":[0,4]}}", new byte[4]),
        "tensor 't' has no dtype");
    assertRejected(
        handMade("{\"t\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", new byte[4]),
        "has no shape");
    assertRejected(
        handMade("{\"t\":{\"dtype\":\"F32\",\"shape\":[1]}}", new byte[4]), "has no data_offsets");
    assertRejected(
        handMade("{\"t\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", new byte[4]),
        "shape must hold integers from 0",
        "element 0 is -1");
    assertRejected(
        handMade("{\"t\":{\"dtype\":\"F32\",\"shape\":[1.0],\"data_offsets\":[0,4]}}", new byte[4]),
        "shape must hold integers from 0");
    assertRejected(
        handMade("{\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}", new byte[4]),
        "data_offsets must have 2 elements");
    assertRejected(
        handMade("{\"t\":{\"dtype\":32,\"shape\":[1],\"data_offsets\":[0,4]}}", new byte[4]),
        "dtype must be a string");
    assertRejected(handMade("{\"t\":[1]}", new byte[4]), "tensor 't' must be an object");
  }

  @Test
  void sizeAndOffsetProblems() throws IOException {
    // TensorInvalidInfo: shape [2, 2] of I32 needs 16 bytes.
    assertRejected(
        handMade(
            "{\"test\":{\"dtype\":\"I32\",\"shape\":[2,2],\"data_offsets\":[0,4]}}", new byte[4]),
        "invalid tensor info for 'test'",
        "needs 16 bytes",
        "span 4");
    // InvalidOffset: a hole, an overlap, a start after 0, an end before the begin.
    assertRejected(
        handMade(
            "{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
                + "\"b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[3,5]}}",
            new byte[5]),
        "invalid offset for tensor 'b'",
        "ends at 2");
    assertRejected(
        handMade(
            "{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
                + "\"b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[1,3]}}",
            new byte[3]),
        "invalid offset for tensor 'b'");
    assertRejected(
        handMade("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[2,4]}}", new byte[4]),
        "invalid offset for tensor 'a'",
        "starts at 0");
    assertRejected(
        handMade(
            "{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
                + "\"b\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[2,1]}}",
            new byte[2]),
        "invalid offset for tensor 'b'",
        "[2, 1]");
    // The reference's test_json_attack: huge offsets on a small file.
    assertRejected(
        handMade(
            "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                + "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,18446744073709551614]}}",
            new byte[8]),
        "data_offsets must hold integers from 0 to 9223372036854775807",
        "18446744073709551614");
    // ValidationOverflow.
    assertRejected(
        handMade(
            "{\"t\":{\"dtype\":\"I32\",\"shape\":[2,4611686018427387904],\"data_offsets\":[0,16]}}",
            new byte[16]),
        "overflows");
    // Sub-byte dtypes that do not end on a byte.
    assertRejected(
        handMade("{\"t\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", new byte[2]),
        "byte boundary");
  }

  @Test
  void theDataMustCoverTheRestOfTheFileExactly() throws IOException {
    byte[] good = handMade(GOOD, new byte[16]);
    assertEquals(4, Safetensors.deserialize(good).tensors().get("test").numel());
    // The reference's test_metadata_incomplete_buffer: extra bytes (a polyglot file) ...
    assertRejected(
        handMade(GOOD, new byte[16], "extra_bogus_data_for_polyglot_file".getBytes(UTF_8)),
        "incomplete metadata",
        "cover 16 bytes",
        "50 follow");
    // ... and a truncated file.
    assertRejected(
        java.util.Arrays.copyOf(good, good.length - 2),
        "truncated",
        "16 bytes of tensor data",
        "only 14");
    byte[] saved = Safetensors.serialize(Map.of("w", Tensor.randn(10, 10)), Map.of("k", "v"));
    for (int cut : new int[] {1, 7, 8, 20, saved.length / 2, saved.length - 1}) {
      byte[] truncated = java.util.Arrays.copyOf(saved, cut);
      assertThrows(
          SafetensorsException.class, () -> Safetensors.deserialize(truncated), "cut at " + cut);
    }
  }

  @Test
  void dtypesThisRuntimeCannotHoldAreRejectedByName() throws IOException {
    for (String dtype : new String[] {"F8_E4M3", "F8_E5M2", "U64", "C64"}) {
      int bytes = dtype.startsWith("F8") ? 2 : 16;
      assertRejected(
          handMade(
              "{\"t\":{\"dtype\":\""
                  + dtype
                  + "\",\"shape\":[2],\"data_offsets\":[0,"
                  + bytes
                  + "]}}",
              new byte[bytes]),
          "tensor 't' has dtype " + dtype,
          "cannot represent");
    }
  }

  @Test
  void aLoadedFileDoesNotFollowLaterChangesOnDisk() throws IOException {
    Path file = dir.resolve("w.safetensors");
    Safetensors.save(Map.of("w", Tensor.ones(3)), null, file);
    Safetensors.Contents first = Safetensors.load(file);
    Safetensors.save(Map.of("w", Tensor.zeros(3)), null, file);
    assertArrayEquals(
        new float[] {1, 1, 1}, first.tensors().get("w").toFloatArray(), "tensors own their memory");
    assertArrayEquals(
        new float[] {0, 0, 0}, Safetensors.load(file).tensors().get("w").toFloatArray());
    assertFalse(Safetensors.load(file).metadata().containsKey("anything"));
  }
}
