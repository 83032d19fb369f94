package dev.ondevice.io;

import static dev.ondevice.io.SafetensorsTest.handMade;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ondevice.Tensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The header's JSON, read with Jackson's streaming parser: each malformed header is rejected with
 * its own message, the limits hold on reading and on writing, and a header round-trips.
 */
class SafetensorsHeaderTest {
  private static final String ENTRY = "{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}";

  /**
   * The message of the {@link SafetensorsException} reading {@code bytes} gives, without its {@code
   * <bytes>: }.
   */
  private static String rejected(byte[] bytes) {
    SafetensorsException e =
        assertThrows(SafetensorsException.class, () -> Safetensors.deserialize(bytes));
    assertEquals("<bytes>", e.source());
    return e.getMessage().substring("<bytes>: ".length());
  }

  private static String rejected(String header, byte[]... data) {
    return rejected(handMade(header, data));
  }

  @Test
  void aTruncatedHeaderIsNotValidJson() {
    assertEquals(
        "invalid header: it is not valid JSON: Unexpected end-of-input in field name at character 25",
        rejected("{\"t\":{\"dtype\":\"U8\",\"shape"));
    assertEquals(
        "invalid header: it is not valid JSON: Unexpected end-of-input: was expecting closing quote for a"
            + " string value at character 17",
        rejected("{\"t\":{\"dtype\":\"U8"));
    assertEquals(
        "invalid header: it is not valid JSON: Unexpected end-of-input: expected close marker for Object"
            + " (start marker at [line: 1, column: 1]) at character 1",
        rejected("{"));
    assertEquals("invalid header: it must be a JSON object, it is nothing", rejected("        "));
  }

  /** What RFC 8259 does not allow, each the first problem of its header. */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"__metadata__\":{\"a\":\"b\",}}|Unexpected character ('}' (code 125)): was expecting double-quote to start"
            + " field name at character 25",
        "{\"__metadata__\":{'a':\"b\"}}|Unexpected character (''' (code 39)): was expecting double-quote to start field"
            + " name at character 17",
        "/* c */{}|Unexpected character ('/' (code 47)): maybe a (non-standard) comment? (not recognized as one since"
            + " Feature 'ALLOW_COMMENTS' not enabled for parser) at character 0",
        "{\"t\":{\"shape\":[01]}}|Invalid numeric value: Leading zeroes not allowed at character 16",
        "{\"t\":{\"shape\":[NaN]}}|Non-standard token 'NaN': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to"
            + " allow at character 18",
        "{\"t\":{\"dtype\":tru}}|Unrecognized token 'tru': was expecting (JSON String, Number, Array, Object or token"
            + " 'null', 'true' or 'false') at character 14",
        "{} x|Unrecognized token 'x': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or"
            + " 'false') at character 3",
        "\uFEFF{}|Unexpected character ('\uFEFF' (code 65279 / 0xfeff)): expected a valid value (JSON String, Number,"
            + " Array, Object or token 'null', 'true' or 'false') at character 0"
      })
  void whatRfc8259DoesNotAllowIsNotValidJson(String header, String problem) {
    assertEquals("invalid header: it is not valid JSON: " + problem, rejected(header));
  }

  @Test
  void anUnescapedControlCharacterIsNotValidJson() {
    assertEquals(
        "invalid header: it is not valid JSON: Illegal unquoted character ((CTRL-CHAR, code 10)): has to be"
            + " escaped using backslash to be included in name at character 19",
        rejected("{\"__metadata__\":{\"a\nb\":\"c\"}}"));
  }

  @Test
  void aSecondValueAfterTheObjectIsRejected() {
    assertEquals(
        "invalid header: unexpected an object after the end of the header's JSON object at character 3",
        rejected("{} {}"));
  }

  @Test
  void valuesOfTheWrongTypeAreNamed() {
    assertEquals("invalid header: it must be a JSON object, it is an array", rejected("[]"));
    assertEquals(
        "invalid header: __metadata__ must be an object of strings, it is a string",
        rejected("{\"__metadata__\":\"x\"}"));
    assertEquals(
        "invalid header: __metadata__ must map strings to strings, but 'epoch' is a number (3)",
        rejected("{\"__metadata__\":{\"epoch\":3}}"));
    assertEquals(
        "invalid header: __metadata__ must map strings to strings, but 'a' is null",
        rejected("{\"__metadata__\":{\"a\":null}}"));
    assertEquals(
        "invalid header: tensor 't' must be an object with dtype, shape and data_offsets, it is a boolean",
        rejected("{\"t\":true}"));
    assertEquals(
        "invalid header: tensor 't': dtype must be a string, it is an array",
        rejected("{\"t\":{\"dtype\":[\"F32\"],\"shape\":[1],\"data_offsets\":[0,4]}}"));
    assertEquals(
        "invalid header: tensor 't': shape must be an array of integers, it is a string",
        rejected("{\"t\":{\"dtype\":\"F32\",\"shape\":\"1\",\"data_offsets\":[0,4]}}"));
    assertEquals(
        "invalid header: tensor 't': data_offsets must hold integers from 0 to 9223372036854775807, element 1"
            + " is a string",
        rejected("{\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,\"4\"]}}"));
    assertEquals(
        "invalid header: tensor 't': shape must hold integers from 0 to 9223372036854775807, element 0 is"
            + " 1e0",
        rejected("{\"t\":{\"dtype\":\"F32\",\"shape\":[1e0],\"data_offsets\":[0,4]}}"));
    assertEquals(
        "invalid header: tensor 't': shape must hold integers from 0 to 9223372036854775807, element 0 is"
            + " -0",
        rejected("{\"t\":{\"dtype\":\"F32\",\"shape\":[-0],\"data_offsets\":[0,0]}}"));
    assertEquals(
        "invalid header: tensor 't': data_offsets must have 2 elements, it has 1",
        rejected("{\"t\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0]}}"));
    assertEquals(
        "invalid header: tensor 't': data_offsets must have 2 elements, it has more",
        rejected("{\"t\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4,8]}}"));
  }

  @Test
  void duplicateKeysAreRejectedWhereTheirValuesAreRead() throws SafetensorsException {
    assertEquals(
        "invalid header: duplicate key \"t\" in the header at character 53",
        rejected("{\"t\":" + ENTRY + ",\"t\":" + ENTRY + "}", new byte[2]));
    assertEquals(
        "invalid header: duplicate key \"a\" in __metadata__ at character 25",
        rejected("{\"__metadata__\":{\"a\":\"1\",\"a\":\"2\"}}"));
    assertEquals(
        "invalid header: duplicate key \"__metadata__\" in the header at character 19",
        rejected("{\"__metadata__\":{},\"__metadata__\":{}}"));
    assertEquals(
        "invalid header: duplicate key \"shape\" in tensor 't' at character 31",
        rejected(
            "{\"t\":{\"shape\":[2],\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,2]}}",
            new byte[2]));
    // Inside a field the reader skips, as the reference does: nothing is read from it.
    byte[] ignored =
        handMade(
            "{\"t\":{\"x\":{\"k\":1,\"k\":2},\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}",
            new byte[] {7, 9});
    assertArrayEquals(
        new long[] {7, 9}, Safetensors.deserialize(ignored).tensors().get("t").toLongArray());
  }

  @Test
  void nestingIsLimitedTo128Levels() throws SafetensorsException {
    // The header object and the entry are two levels; an ignored field adds the rest.
    String deepest =
        "{\"t\":{\"x\":"
            + "[".repeat(126)
            + "]".repeat(126)
            + ",\"dtype\":\"U8\",\"shape\":[2],"
            + "\"data_offsets\":[0,2]}}";
    assertEquals(
        2, Safetensors.deserialize(handMade(deepest, new byte[2])).tensors().get("t").numel());
    assertEquals(
        "invalid header: it exceeds a limit of this reader: Document nesting depth (129) exceeds the maximum"
            + " allowed (128, from `StreamReadConstraints.getMaxNestingDepth()`) (the limits are Safetensors.MAX_*, see"
            + " docs/checkpoints.md)",
        rejected("{\"t\":{\"x\":" + "[".repeat(127) + "]".repeat(127) + "}}"));
    assertEquals(128, Safetensors.MAX_NESTING_DEPTH);
  }

  @Test
  void offsetsOutOfRangeAreRejected() {
    assertEquals(
        "truncated: the header declares 2 bytes of tensor data but only 1 follow it",
        rejected("{\"t\":" + ENTRY + "}", new byte[1]));
    assertEquals(
        "invalid offset for tensor 't': data_offsets [1, 3], but the data starts at 0; tensors must follow"
            + " one another without holes or overlaps",
        rejected("{\"t\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[1,3]}}", new byte[3]));
    assertEquals(
        "invalid header: tensor 't': data_offsets must hold integers from 0 to 9223372036854775807, element 1"
            + " is 9223372036854775808",
        rejected(
            "{\"t\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,9223372036854775808]}}",
            new byte[2]));
    assertEquals(
        "invalid tensor info for 't': shape [2] of dtype U8 needs 2 bytes, but data_offsets [0,"
            + " 9223372036854775807] span 9223372036854775807",
        rejected(
            "{\"t\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,9223372036854775807]}}",
            new byte[2]));
  }

  @Test
  void aHeaderThatIsNotUtf8IsRejected() {
    byte[] invalidByte = handMade("{\"__metadata__\":{\"a\":\"x\"}}");
    invalidByte[8 + 22] = (byte) 0xff;
    assertEquals("invalid header: it is not valid UTF-8 (Input length = 1)", rejected(invalidByte));
    // An encoded surrogate (U+D800 as ED A0 80) is not UTF-8 either.
    byte[] surrogate = handMade("{\"__metadata__\":{\"a\":\"xyz\"}}");
    surrogate[8 + 22] = (byte) 0xed;
    surrogate[8 + 23] = (byte) 0xa0;
    surrogate[8 + 24] = (byte) 0x80;
    assertEquals("invalid header: it is not valid UTF-8 (Input length = 3)", rejected(surrogate));
    // Nor is half a character spelled as an escape.
    assertEquals(
        "invalid header: the tensor name \"a\uD800\" has an unpaired surrogate at index 1 (a \\u escape of"
            + " half a character), which is not Unicode",
        rejected("{\"a\\ud800\":" + ENTRY + "}", new byte[2]));
    assertEquals(
        "invalid header: the __metadata__ value of 'k' \"\uDC00\" has an unpaired surrogate at index 0 (a \\u"
            + " escape of half a character), which is not Unicode",
        rejected("{\"__metadata__\":{\"k\":\"\\udc00\"}}"));
  }

  @Test
  void theNumberOfTensorsIsLimited() {
    StringBuilder header = new StringBuilder("{");
    for (int i = 0; i <= Safetensors.MAX_TENSORS; i++) {
      header
          .append(i == 0 ? "" : ",")
          .append("\"t")
          .append(i)
          .append("\":{\"dtype\":\"U8\",\"shape\":[0]," + "\"data_offsets\":[0,0]}");
    }
    assertEquals(
        "invalid header: it has more than 100000 tensors, the most this reader accepts"
            + " (Safetensors.MAX_TENSORS); split the tensors over several files",
        rejected(header.append('}').toString()));

    Map<String, Tensor> tooMany = new HashMap<>();
    Tensor one = Tensor.of(1f);
    for (int i = 0; i <= Safetensors.MAX_TENSORS; i++) {
      tooMany.put("t" + i, one);
    }
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Safetensors.serialize(tooMany, null));
    assertEquals(
        "Safetensors.serialize: 100001 tensors, more than the 100000 readers accept"
            + " (Safetensors.MAX_TENSORS); save them to several files",
        e.getMessage());
  }

  @Test
  void namesAndStringsAreLimited() {
    String longName = "n".repeat(Safetensors.MAX_NAME_LENGTH + 1);
    assertEquals(
        "invalid header: it exceeds a limit of this reader: Name length (50001) exceeds the maximum allowed"
            + " (50000, from `StreamReadConstraints.getMaxNameLength()`) (the limits are Safetensors.MAX_*, see"
            + " docs/checkpoints.md)",
        rejected("{\"" + longName + "\":" + ENTRY + "}", new byte[2]));
    IllegalArgumentException name =
        assertThrows(
            IllegalArgumentException.class,
            () -> Safetensors.serialize(Map.of(longName, Tensor.of(1f)), null));
    assertEquals(
        "Safetensors.serialize: the tensor name \"nnnnnnnnnnnnnnnnnnnn...\" has 50001 chars, more than the"
            + " 50000 readers accept",
        name.getMessage());

    String longValue = "v".repeat(Safetensors.MAX_STRING_LENGTH + 1);
    assertEquals(
        "invalid header: it exceeds a limit of this reader: String value length (20000001) exceeds the"
            + " maximum allowed (20000000, from `StreamReadConstraints.getMaxStringLength()`) (the limits are"
            + " Safetensors.MAX_*, see docs/checkpoints.md)",
        rejected("{\"__metadata__\":{\"k\":\"" + longValue + "\"}}"));
    IllegalArgumentException value =
        assertThrows(
            IllegalArgumentException.class,
            () -> Safetensors.serialize(Map.of(), Map.of("k", longValue)));
    assertEquals(
        "Safetensors.serialize: the metadata value of 'k' \"vvvvvvvvvvvvvvvvvvvv...\" has 20000001 chars, more"
            + " than the 20000000 readers accept",
        value.getMessage());
  }

  @Test
  void aHeaderRoundTripsAndIsWrittenTheSameAgain() throws SafetensorsException {
    Map<String, Tensor> tensors = new LinkedHashMap<>();
    tensors.put("layer.0/w\u00e9ight \"q\"", Tensor.of(new float[] {1.5f, -2, 0.25f, 8}, 2, 2));
    tensors.put("ids\t\u0001", Tensor.of(new long[] {3, Long.MIN_VALUE}, 2));
    tensors.put("mask\uD83D\uDE00", Tensor.of(new boolean[] {true, false, true}, 3));
    tensors.put("empty", Tensor.of(new double[0], 0));
    Map<String, String> metadata =
        Map.of("format", "pt", "note", "line\nbreak \\ \"quoted\"", "", "empty key");
    byte[] bytes = Safetensors.serialize(tensors, metadata);

    Safetensors.Contents back = Safetensors.deserialize(bytes);
    assertEquals(metadata, back.metadata());
    assertEquals(
        List.of("ids\t\u0001", "empty", "layer.0/w\u00e9ight \"q\"", "mask\uD83D\uDE00"),
        List.copyOf(back.tensors().keySet()),
        "the data's order: I64, F64, F32, BOOL");
    assertArrayEquals(
        new float[] {1.5f, -2, 0.25f, 8},
        back.tensors().get("layer.0/w\u00e9ight \"q\"").toFloatArray());
    assertArrayEquals(
        new long[] {3, Long.MIN_VALUE}, back.tensors().get("ids\t\u0001").toLongArray());
    assertArrayEquals(
        new boolean[] {true, false, true}, back.tensors().get("mask\uD83D\uDE00").toBooleanArray());
    assertEquals(0, back.tensors().get("empty").numel());
    assertArrayEquals(
        bytes, Safetensors.serialize(back.tensors(), back.metadata()), "the same bytes again");
    int length = (int) ByteBuffer.wrap(bytes, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    assertEquals(
        "{\"__metadata__\":{\"\":\"empty key\",\"format\":\"pt\",\"note\":\"line\\nbreak \\\\ \\\"quoted\\\"\"},"
            + "\"ids\\t\\u0001\":{\"dtype\":\"I64\",\"shape\":[2],\"data_offsets\":[0,16]},"
            + "\"empty\":{\"dtype\":\"F64\",\"shape\":[0],\"data_offsets\":[16,16]},"
            + "\"layer.0/w\u00e9ight \\\"q\\\"\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[16,32]},"
            + "\"mask\uD83D\uDE00\":{\"dtype\":\"BOOL\",\"shape\":[3],\"data_offsets\":[32,35]}}       ",
        new String(bytes, 8, length, UTF_8));
  }
}
