package dev.ondevice.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The strict JSON reader and the serde_json-style string writer behind safetensors headers. */
class JsonTest {
  @Test
  void parsesEveryKindOfValue() throws Json.JsonException {
    Object v = Json.parse(" {\"a\": [1, -2.5e3, 0, true, false, null, \"s\"], \"b\": {}, \"c\": []} \n");
    Map<?, ?> m = (Map<?, ?>) v;
    List<?> a = (List<?>) m.get("a");
    assertEquals("1", a.get(0).toString());
    assertEquals("-2.5e3", a.get(1).toString());
    assertEquals(0, ((Json.JsonNumber) a.get(2)).asNonNegativeLong());
    assertEquals(-1, ((Json.JsonNumber) a.get(1)).asNonNegativeLong());
    assertEquals(true, a.get(3));
    assertEquals(false, a.get(4));
    assertSame(Json.NULL, a.get(5));
    assertEquals("s", a.get(6));
    assertEquals(Map.of(), m.get("b"));
    assertEquals(List.of(), m.get("c"));
    assertEquals(List.of("a", "b", "c"), List.copyOf(m.keySet()), "document order");
  }

  @Test
  void decodesEscapesAndSurrogatePairs() throws Json.JsonException {
    assertEquals("\"\\/\b\f\n\r\t\u00e9\uD83D\uDE00", Json.parse("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00E9\\ud83d\\ude00\""));
    assertEquals("\uD83D\uDE00", Json.parse("\"\uD83D\uDE00\""), "raw non-ASCII is kept");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "{", "{\"a\"}", "{\"a\":}", "{a:1}", "{'a':1}", "[1,]", "[1 2]", "01", "-", "1.", "1e",
      ".5", "+1", "tru", "nul", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
      "\"a\nb\"", "{} {}", "/* c */ {}", "{\"a\":1,\"a\":2}", "\uFEFF{}"})
  void rejectsWhatRfc8259DoesNotAllow(String text) {
    assertThrows(Json.JsonException.class, () -> Json.parse(text), text);
  }

  @Test
  void errorsSayWhereAndWhat() {
    Json.JsonException e = assertThrows(Json.JsonException.class, () -> Json.parse("{\"k\":1,\"k\":2}"));
    assertTrue(e.getMessage().contains("duplicate key \"k\" at character 7"), e.getMessage());
    Json.JsonException depth = assertThrows(Json.JsonException.class,
        () -> Json.parse("{\"a\":".repeat(129) + "1" + "}".repeat(129)));
    assertTrue(depth.getMessage().contains("nesting deeper than 128"), depth.getMessage());
  }

  @Test
  void acceptsNestingUpToTheLimit() throws Json.JsonException {
    Json.parse("[".repeat(128) + "]".repeat(128));
  }

  @Test
  void writesStringsAsSerdeJson() {
    StringBuilder sb = new StringBuilder();
    Json.writeString(sb, "a\"b\\c/\b\f\n\r\t\u0000\u001f\u007f\u00e9\uD83D\uDE00");
    assertEquals("\"a\\\"b\\\\c/\\b\\f\\n\\r\\t\\u0000\\u001f\u007f\u00e9\uD83D\uDE00\"", sb.toString());
    assertEquals(-1, Json.unpairedSurrogate("ok\uD83D\uDE00"));
    assertEquals(1, Json.unpairedSurrogate("a\uDE00"));
    assertEquals(2, Json.unpairedSurrogate("ab\uD83D"));
  }
}
