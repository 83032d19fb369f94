package dev.ondevice.io;

import static dev.ondevice.io.Safetensors.MAX_NAME_LENGTH;
import static dev.ondevice.io.Safetensors.MAX_NESTING_DEPTH;
import static dev.ondevice.io.Safetensors.MAX_STRING_LENGTH;
import static dev.ondevice.io.Safetensors.MAX_TENSORS;
import static dev.ondevice.io.Safetensors.METADATA_KEY;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a safetensors header with Jackson's streaming parser and validates it as the reference
 * does: one JSON object (RFC 8259, nothing but whitespace after it), {@code __metadata__} null or a
 * map of strings to strings, every other key a tensor entry with a known dtype, a shape and a pair
 * of data offsets of integers from 0, no duplicate key where a value is read, and offsets that,
 * sorted, follow one another from 0 and match each shape's size. Fields of a tensor entry other
 * than the three are skipped, as by the reference.
 *
 * <p>The text is decoded from strict UTF-8 here and parsed as characters, so that Jackson's own
 * encoding detection (a byte order mark, UTF-16 or UTF-32 guessed from zero bytes) never applies.
 * Jackson enforces the nesting and string limits ({@link StreamReadConstraints}); the number of
 * tensors is counted here.
 */
final class HeaderReader {
  private static final JsonFactory JSON =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNestingDepth(MAX_NESTING_DEPTH)
                  .maxStringLength(MAX_STRING_LENGTH)
                  .maxNameLength(MAX_NAME_LENGTH)
                  .build())
          // Untrusted names are not interned: a header of many names cannot fill the symbol table.
          .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
          .build();

  /**
   * The bracketed source Jackson puts in some messages; the file is named by the exception already.
   */
  private static final String REDACTED_SOURCE =
      "Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION`" + " disabled); ";

  private final JsonParser parser;
  private final String source;

  private HeaderReader(JsonParser parser, String source) {
    this.parser = parser;
    this.source = source;
  }

  /**
   * The header in {@code utf8}, validated.
   *
   * @throws SafetensorsException naming {@code source} and the problem
   */
  static Header read(ByteBuffer utf8, String source) throws SafetensorsException {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(utf8)
              .toString();
    } catch (CharacterCodingException e) {
      throw new SafetensorsException(
          source, "invalid header: it is not valid UTF-8 (" + e.getMessage() + ")", e);
    }
    try (JsonParser parser = JSON.createParser(text)) {
      return new HeaderReader(parser, source).header();
    } catch (SafetensorsException e) {
      throw e;
    } catch (StreamConstraintsException e) {
      throw new SafetensorsException(
          source,
          "invalid header: it exceeds a limit of this reader: "
              + e.getOriginalMessage()
              + " (the limits are Safetensors.MAX_*, see docs/checkpoints.md)",
          e);
    } catch (JsonProcessingException e) {
      throw new SafetensorsException(
          source,
          "invalid header: it is not valid JSON: "
              + e.getOriginalMessage().replace(REDACTED_SOURCE, "")
              + (e.getLocation() == null ? "" : " at character " + e.getLocation().getCharOffset()),
          e);
    } catch (IOException e) {
      throw new SafetensorsException(source, "invalid header: reading it failed: " + e, e);
    }
  }

  private Header header() throws IOException {
    if (parser.nextToken() != JsonToken.START_OBJECT) {
      throw invalid("it must be a JSON object, it is " + kind());
    }
    Map<String, String> metadata = new LinkedHashMap<>();
    List<TensorInfo> tensors = new ArrayList<>();
    Set<String> keys = new HashSet<>();
    for (String key = parser.nextFieldName(); key != null; key = parser.nextFieldName()) {
      unique(keys, key, "the header");
      parser.nextToken();
      if (key.equals(METADATA_KEY)) {
        readMetadata(metadata);
      } else {
        if (tensors.size() == MAX_TENSORS) {
          throw invalid(
              "it has more than "
                  + MAX_TENSORS
                  + " tensors, the most this reader accepts"
                  + " (Safetensors.MAX_TENSORS); split the tensors over several files");
        }
        tensors.add(readTensor(key));
      }
    }
    if (parser.nextToken() != null) {
      throw invalid("unexpected " + kind() + " after the end of the header's JSON object" + at());
    }
    return new Header(metadata, checkOffsets(tensors));
  }

  private void readMetadata(Map<String, String> out) throws IOException {
    if (parser.currentToken() == JsonToken.VALUE_NULL) {
      return;
    }
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      throw invalid(METADATA_KEY + " must be an object of strings, it is " + kind());
    }
    for (String key = parser.nextFieldName(); key != null; key = parser.nextFieldName()) {
      if (out.containsKey(unicode(key, METADATA_KEY + " key"))) {
        throw duplicate(key, METADATA_KEY);
      }
      if (parser.nextToken() != JsonToken.VALUE_STRING) {
        throw invalid(
            METADATA_KEY + " must map strings to strings, but '" + key + "' is " + kind());
      }
      out.put(key, unicode(parser.getText(), METADATA_KEY + " value of '" + key + "'"));
    }
  }

  private TensorInfo readTensor(String name) throws IOException {
    String where = "tensor '" + unicode(name, "tensor name") + "'";
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      throw invalid(
          where + " must be an object with dtype, shape and data_offsets, it is " + kind());
    }
    Safetensors.FileDtype dtype = null;
    long[] shape = null;
    long[] offsets = null;
    Set<String> fields = new HashSet<>();
    for (String key = parser.nextFieldName(); key != null; key = parser.nextFieldName()) {
      unique(fields, key, where);
      parser.nextToken();
      switch (key) {
        case "dtype" -> dtype = readDtype(where);
        case "shape" -> shape = integers(where, "shape", -1);
        case "data_offsets" -> offsets = integers(where, "data_offsets", 2);
        default -> parser.skipChildren();
      }
    }
    if (dtype == null || shape == null || offsets == null) {
      throw invalid(
          where
              + " has no "
              + (dtype == null ? "dtype" : shape == null ? "shape" : "data_offsets"));
    }
    return new TensorInfo(name, dtype, shape, offsets[0], offsets[1]);
  }

  private Safetensors.FileDtype readDtype(String where) throws IOException {
    if (parser.currentToken() != JsonToken.VALUE_STRING) {
      throw invalid(where + ": dtype must be a string, it is " + kind());
    }
    Safetensors.FileDtype dtype = Safetensors.FileDtype.parse(parser.getText());
    if (dtype == null) {
      throw invalid(
          where
              + ": unknown dtype \""
              + parser.getText()
              + "\"; the format's dtypes are "
              + Arrays.toString(Safetensors.FileDtype.values()));
    }
    return dtype;
  }

  /**
   * A JSON array of integers from 0 to {@link Long#MAX_VALUE}; of {@code length} elements unless it
   * is -1.
   */
  private long[] integers(String where, String key, int length) throws IOException {
    if (parser.currentToken() != JsonToken.START_ARRAY) {
      throw invalid(where + ": " + key + " must be an array of integers, it is " + kind());
    }
    long[] out = new long[Math.max(length, 4)];
    int n = 0;
    while (parser.nextToken() != JsonToken.END_ARRAY) {
      boolean fits =
          parser.currentToken() == JsonToken.VALUE_NUMBER_INT
              && !parser.getText().startsWith("-")
              && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER;
      if (!fits) {
        throw invalid(
            where
                + ": "
                + key
                + " must hold integers from 0 to "
                + Long.MAX_VALUE
                + ", element "
                + n
                + " is "
                + (parser.currentToken().isNumeric() ? parser.getText() : kind()));
      }
      if (n == length) {
        throw invalid(where + ": " + key + " must have " + length + " elements, it has more");
      }
      if (n == out.length) {
        out = Arrays.copyOf(out, 2 * n);
      }
      out[n++] = parser.getLongValue();
    }
    if (length >= 0 && n != length) {
      throw invalid(where + ": " + key + " must have " + length + " elements, it has " + n);
    }
    return Arrays.copyOf(out, n);
  }

  /**
   * The tensors ordered by offsets, after checking, as the reference does, that they follow one
   * another from 0 and that each spans the bytes its shape and dtype need.
   */
  private List<TensorInfo> checkOffsets(List<TensorInfo> tensors) throws SafetensorsException {
    tensors.sort(Comparator.<TensorInfo>comparingLong(i -> i.begin).thenComparingLong(i -> i.end));
    long start = 0;
    for (TensorInfo info : tensors) {
      if (info.begin != start || info.end < info.begin) {
        throw new SafetensorsException(
            source,
            "invalid offset for tensor '"
                + info.name
                + "': data_offsets ["
                + info.begin
                + ", "
                + info.end
                + "], but "
                + (start == 0 ? "the data starts at 0" : "the tensor before it ends at " + start)
                + "; tensors must follow one another without holes or"
                + " overlaps");
      }
      start = info.end;
      long bytes = byteSize(info);
      if (info.end - info.begin != bytes) {
        throw new SafetensorsException(
            source,
            "invalid tensor info for '"
                + info.name
                + "': shape "
                + Arrays.toString(info.shape)
                + " of dtype "
                + info.dtype
                + " needs "
                + bytes
                + " bytes, but data_offsets ["
                + info.begin
                + ", "
                + info.end
                + "] span "
                + (info.end - info.begin));
      }
    }
    return tensors;
  }

  /**
   * The bytes the shape and dtype of {@code info} need, with the reference's overflow and alignment
   * checks.
   */
  private long byteSize(TensorInfo info) throws SafetensorsException {
    try {
      long elements = 1;
      for (long d : info.shape) {
        elements = Math.multiplyExact(elements, d);
      }
      long bits = Math.multiplyExact(elements, (long) info.dtype.bits);
      if (bits % 8 != 0) {
        throw new SafetensorsException(
            source,
            "tensor '"
                + info.name
                + "': "
                + elements
                + " elements of "
                + info.dtype
                + " do not end on a byte boundary");
      }
      return bits / 8;
    } catch (ArithmeticException e) {
      throw new SafetensorsException(
          source,
          "tensor '"
              + info.name
              + "': the size of shape "
              + Arrays.toString(info.shape)
              + " of dtype "
              + info.dtype
              + " overflows");
    }
  }

  /** Adds {@code key} to the keys seen in {@code where}, or rejects it as a duplicate. */
  private void unique(Set<String> seen, String key, String where) throws SafetensorsException {
    if (!seen.add(key)) {
      throw duplicate(key, where);
    }
  }

  private SafetensorsException duplicate(String key, String where) {
    return invalid("duplicate key \"" + key + "\" in " + where + at());
  }

  /**
   * {@code s}, unless it holds an unpaired surrogate (a {@code \ud800} escape), which UTF-8 cannot
   * encode.
   */
  private String unicode(String s, String what) throws SafetensorsException {
    int at = JsonStrings.unpairedSurrogate(s);
    if (at >= 0) {
      throw invalid(
          "the "
              + what
              + " \""
              + s
              + "\" has an unpaired surrogate at index "
              + at
              + " (a \\u escape of half a character), which is not Unicode");
    }
    return s;
  }

  /** The kind of the current value, for messages. */
  private String kind() throws IOException {
    JsonToken t = parser.currentToken();
    if (t == null) {
      return "nothing";
    }
    return switch (t) {
      case START_OBJECT -> "an object";
      case START_ARRAY -> "an array";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number (" + parser.getText() + ")";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      case VALUE_NULL -> "null";
      default -> t.asString() == null ? t.name() : "'" + t.asString() + "'";
    };
  }

  /** Where the parser is, for messages. */
  private String at() {
    return " at character " + parser.currentTokenLocation().getCharOffset();
  }

  private SafetensorsException invalid(String problem) {
    return new SafetensorsException(source, "invalid header: " + problem);
  }
}
