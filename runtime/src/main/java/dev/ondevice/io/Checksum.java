package dev.ondevice.io;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The checksum a checkpoint carries in its {@code __metadata__} under {@value #KEY}: a CRC-32C,
 * eight lowercase hex digits, of the file's meaning rather than its header's bytes, so that a
 * reader that rewrites the header (reorders its keys, changes its padding) keeps it valid:
 *
 * <ol>
 *   <li>each metadata entry but this one, by key (code point order): the key, a 0 byte, the value,
 *       a 0 byte (UTF-8);
 *   <li>a 1 byte;
 *   <li>each tensor by data offset, then name: the name, 0, the dtype ({@code F32}), 0, the shape
 *       as decimal sizes joined by commas, 0;
 *   <li>the data, every byte after the header.
 * </ol>
 *
 * <p>Any change to a tensor's name, dtype, shape or bytes, or to a metadata entry (an optimizer's
 * learning rate), changes it. CRC-32C, which processors compute in hardware, adds little to a save
 * or a load; it detects accidental corruption (bit flips, partial copies), not tampering.
 */
final class Checksum {
  /** The metadata key of the checksum. */
  static final String KEY = "ondevice/crc32c";

  /** The value written before the data is known, and overwritten in place once it is. */
  static final String PLACEHOLDER = "00000000";

  /** A tensor as the checksum describes it. */
  record Described(long begin, String name, String dtype, String shape) {}

  private final CRC32C crc = new CRC32C();

  /** A checksum that has taken in the description of {@code metadata} and {@code tensors}. */
  Checksum(Map<String, String> metadata, List<Described> tensors) {
    Map<String, String> ordered = new TreeMap<>(Safetensors::compareCodePoints);
    ordered.putAll(metadata);
    ordered.remove(KEY);
    for (Map.Entry<String, String> e : ordered.entrySet()) {
      text(e.getKey());
      text(e.getValue());
    }
    crc.update(1);
    List<Described> sorted = new ArrayList<>(tensors);
    sorted.sort(
        Comparator.comparingLong(Described::begin)
            .thenComparing(Described::name, Safetensors::compareCodePoints));
    for (Described d : sorted) {
      text(d.name());
      text(d.dtype());
      text(d.shape());
    }
  }

  private void text(String s) {
    crc.update(s.getBytes(StandardCharsets.UTF_8));
    crc.update(0);
  }

  /** Takes in {@code data} from its position to its limit, leaving both as they were. */
  void update(ByteBuffer data) {
    crc.update(data.duplicate());
  }

  /** The checksum so far, as written in the metadata. */
  String value() {
    return String.format("%08x", crc.getValue());
  }

  /** A shape as the description writes it. */
  static String shape(long[] sizes) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < sizes.length; i++) {
      sb.append(i == 0 ? "" : ",").append(sizes[i]);
    }
    return sb.toString();
  }
}
