package dev.ondevice.io;

/**
 * JSON strings as safetensors headers hold them: written with {@code serde_json}'s escapes, so that
 * a header is byte for byte the reference writer's, and checked to be valid Unicode.
 *
 * <p>Jackson's generator is not used for writing: it escapes the other control characters with
 * upper-case hex ({@code \u001F}) where {@code serde_json} writes lower-case ({@code \u001f}).
 */
final class JsonStrings {
  private JsonStrings() {}

  /**
   * Appends {@code s} as a JSON string, escaped as {@code serde_json} does: the quote, the
   * backslash and the control characters backspace, form feed, newline, carriage return and tab
   * with a backslash and one letter, other control characters as a six-character unicode escape
   * with lower-case hex, everything else (including non-ASCII) as is.
   */
  static void append(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /**
   * The position of an unpaired surrogate in {@code s}, or -1: such a string has no UTF-8 form, so
   * it can be neither written nor read (a header may spell one as a {@code \ud800} escape).
   */
  static int unpairedSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }
}
