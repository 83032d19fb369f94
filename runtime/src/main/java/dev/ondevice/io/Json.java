package dev.ondevice.io;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, strict JSON reader and writer (RFC 8259), for safetensors headers.
 *
 * <p>The reader returns {@code Map<String, Object>} (in document order) for objects, {@code
 * List<Object>} for arrays, {@link String}, {@link JsonNumber} (the literal, unconverted), {@link
 * Boolean} and {@link #NULL}. It rejects what RFC 8259 does not allow (trailing commas, comments,
 * single quotes, leading zeros, unescaped control characters, lone surrogates in escapes, content
 * after the value) and, as safetensors requires, duplicate keys; nesting deeper than {@value
 * #MAX_DEPTH} levels is refused, as {@code serde_json} does.
 *
 * <p>The writer escapes strings as {@code serde_json} does: the quote, the backslash and the
 * control characters backspace, form feed, newline, carriage return and tab with a backslash and
 * one letter, other control characters as a six-character unicode escape with lower-case hex,
 * everything else (including non-ASCII) as is.
 */
final class Json {
  /** The deepest nesting of arrays and objects accepted. */
  static final int MAX_DEPTH = 128;
  /** JSON's {@code null}. */
  static final Object NULL = new Object() {
    @Override
    public String toString() {
      return "null";
    }
  };

  private final String text;
  private int pos;

  private Json(String text) {
    this.text = text;
  }

  /** A malformed document; the message says what and where. */
  static final class JsonException extends Exception {
    private static final long serialVersionUID = 1L;

    JsonException(String message) {
      super(message);
    }
  }

  /** A JSON number, kept as its literal text. */
  static final class JsonNumber {
    final String literal;

    JsonNumber(String literal) {
      this.literal = literal;
    }

    /**
     * The value as a non-negative integer that fits a {@code long}, or -1 if the literal has a
     * fraction, an exponent or a sign, or is too large.
     */
    long asNonNegativeLong() {
      for (int i = 0; i < literal.length(); i++) {
        if (literal.charAt(i) < '0' || literal.charAt(i) > '9') {
          return -1;
        }
      }
      try {
        return Long.parseLong(literal);
      } catch (NumberFormatException e) {
        return -1;
      }
    }

    @Override
    public String toString() {
      return literal;
    }
  }

  /** Parses a whole document: one value, with optional whitespace around it. */
  static Object parse(String text) throws JsonException {
    Json p = new Json(text);
    p.skipWhitespace();
    Object value = p.value(0);
    p.skipWhitespace();
    if (p.pos < text.length()) {
      throw p.error("unexpected " + p.describe() + " after the end of the JSON value");
    }
    return value;
  }

  private Object value(int depth) throws JsonException {
    if (pos >= text.length()) {
      throw error("unexpected end of input, expected a value");
    }
    char c = text.charAt(pos);
    return switch (c) {
      case '{' -> object(depth + 1);
      case '[' -> array(depth + 1);
      case '"' -> string();
      case 't' -> {
        literal("true");
        yield true;
      }
      case 'f' -> {
        literal("false");
        yield false;
      }
      case 'n' -> {
        literal("null");
        yield NULL;
      }
      default -> {
        if (c == '-' || (c >= '0' && c <= '9')) {
          yield number();
        }
        throw error("unexpected " + describe() + ", expected a value");
      }
    };
  }

  private Map<String, Object> object(int depth) throws JsonException {
    checkDepth(depth);
    int start = pos;
    pos++;
    Map<String, Object> map = new LinkedHashMap<>();
    skipWhitespace();
    if (peek() == '}') {
      pos++;
      return map;
    }
    while (true) {
      skipWhitespace();
      if (peek() != '"') {
        throw error("expected a string key, found " + describe());
      }
      int keyPos = pos;
      String key = string();
      skipWhitespace();
      expect(':');
      skipWhitespace();
      Object v = value(depth);
      if (map.containsKey(key)) {
        throw new JsonException("duplicate key \"" + key + "\" at character " + keyPos
            + " (in the object at character " + start + ")");
      }
      map.put(key, v);
      skipWhitespace();
      char c = peek();
      if (c == ',') {
        pos++;
      } else if (c == '}') {
        pos++;
        return map;
      } else {
        throw error("expected ',' or '}' in an object, found " + describe());
      }
    }
  }

  private List<Object> array(int depth) throws JsonException {
    checkDepth(depth);
    pos++;
    List<Object> list = new ArrayList<>();
    skipWhitespace();
    if (peek() == ']') {
      pos++;
      return list;
    }
    while (true) {
      skipWhitespace();
      list.add(value(depth));
      skipWhitespace();
      char c = peek();
      if (c == ',') {
        pos++;
      } else if (c == ']') {
        pos++;
        return Collections.unmodifiableList(list);
      } else {
        throw error("expected ',' or ']' in an array, found " + describe());
      }
    }
  }

  private void checkDepth(int depth) throws JsonException {
    if (depth > MAX_DEPTH) {
      throw error("nesting deeper than " + MAX_DEPTH + " levels");
    }
  }

  private String string() throws JsonException {
    pos++;
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (pos >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(pos);
      if (c == '"') {
        pos++;
        return sb.toString();
      }
      if (c < 0x20) {
        throw error(String.format("control character U+%04X in a string must be escaped", (int) c));
      }
      if (c != '\\') {
        sb.append(c);
        pos++;
        continue;
      }
      pos++;
      if (pos >= text.length()) {
        throw error("unterminated escape");
      }
      char e = text.charAt(pos++);
      switch (e) {
        case '"', '\\', '/' -> sb.append(e);
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'n' -> sb.append('\n');
        case 'r' -> sb.append('\r');
        case 't' -> sb.append('\t');
        case 'u' -> {
          char u = hex4();
          if (Character.isHighSurrogate(u)) {
            if (!text.startsWith("\\u", pos)) {
              throw error("lone leading surrogate in a \\u escape");
            }
            pos += 2;
            char low = hex4();
            if (!Character.isLowSurrogate(low)) {
              throw error("a leading surrogate \\u escape is not followed by a trailing one");
            }
            sb.append(u).append(low);
          } else if (Character.isLowSurrogate(u)) {
            throw error("lone trailing surrogate in a \\u escape");
          } else {
            sb.append(u);
          }
        }
        default -> {
          pos--;
          throw error("invalid escape \\" + e);
        }
      }
    }
  }

  private char hex4() throws JsonException {
    if (pos + 4 > text.length()) {
      throw error("unterminated \\u escape");
    }
    int v = 0;
    for (int i = 0; i < 4; i++) {
      int d = Character.digit(text.charAt(pos + i), 16);
      if (d < 0) {
        throw error("invalid hex digit in a \\u escape");
      }
      v = v * 16 + d;
    }
    pos += 4;
    return (char) v;
  }

  private JsonNumber number() throws JsonException {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    if (peek() == '0') {
      pos++;
      if (isDigit(peek())) {
        throw error("leading zeros are not allowed in numbers");
      }
    } else if (isDigit(peek())) {
      digits();
    } else {
      throw error("expected a digit, found " + describe());
    }
    if (peek() == '.') {
      pos++;
      if (!isDigit(peek())) {
        throw error("expected a digit after the decimal point, found " + describe());
      }
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      pos++;
      if (peek() == '+' || peek() == '-') {
        pos++;
      }
      if (!isDigit(peek())) {
        throw error("expected a digit in the exponent, found " + describe());
      }
      digits();
    }
    return new JsonNumber(text.substring(start, pos));
  }

  private void digits() {
    while (isDigit(peek())) {
      pos++;
    }
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private void literal(String word) throws JsonException {
    if (!text.startsWith(word, pos)) {
      throw error("unexpected " + describe() + ", expected a value");
    }
    pos += word.length();
  }

  private void expect(char c) throws JsonException {
    if (peek() != c) {
      throw error("expected '" + c + "', found " + describe());
    }
    pos++;
  }

  /** The character at the cursor, or 0 at the end. */
  private char peek() {
    return pos < text.length() ? text.charAt(pos) : 0;
  }

  private void skipWhitespace() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private String describe() {
    if (pos >= text.length()) {
      return "end of input";
    }
    char c = text.charAt(pos);
    return c < 0x20 || c > 0x7e ? String.format("character U+%04X", (int) c) : "'" + c + "'";
  }

  private JsonException error(String message) {
    return new JsonException(message + " at character " + pos);
  }

  // ---------------------------------------------------------------- writing

  /** Appends {@code s} as a JSON string, escaped as serde_json does. */
  static void writeString(StringBuilder out, String s) {
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
   * The position of an unpaired surrogate in {@code s}, or -1: such a string has no UTF-8 form
   * and cannot be written.
   */
  static int unpairedSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }
}
