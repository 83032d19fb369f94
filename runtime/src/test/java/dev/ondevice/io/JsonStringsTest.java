package dev.ondevice.io;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The serde_json-style string writer of safetensors headers and its Unicode check. */
class JsonStringsTest {
  @Test
  void writesStringsAsSerdeJson() {
    StringBuilder sb = new StringBuilder();
    JsonStrings.append(sb, "a\"b\\c/\b\f\n\r\t\u0000\u001f\u007f\u00e9\uD83D\uDE00");
    assertEquals(
        "\"a\\\"b\\\\c/\\b\\f\\n\\r\\t\\u0000\\u001f\u007f\u00e9\uD83D\uDE00\"", sb.toString());
  }

  @Test
  void findsUnpairedSurrogates() {
    assertEquals(-1, JsonStrings.unpairedSurrogate("ok\uD83D\uDE00"));
    assertEquals(1, JsonStrings.unpairedSurrogate("a\uDE00"));
    assertEquals(2, JsonStrings.unpairedSurrogate("ab\uD83D"));
    assertEquals(0, JsonStrings.unpairedSurrogate("\uD83Da"));
  }
}
