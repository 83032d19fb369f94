package dev.ondevice.io;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Tensor;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded mutations of a valid header's JSON (the header length kept consistent, so that the JSON
 * reader sees every case): each must load or be a {@link SafetensorsException} naming the bytes,
 * never another exception.
 */
class HeaderFuzzTest {
  private static final long SEED = 22;
  private static final int CASES = 4000;

  /** Characters that change JSON's structure, and some that break it. */
  private static final byte[] ALPHABET = "{}[]\":,-.0123456789eE \\u\tntf_aF\u00ff".getBytes(UTF_8);

  private static byte[] mutate(byte[] header, Random random) {
    byte[] h = header.clone();
    int at = random.nextInt(h.length);
    return switch (random.nextInt(5)) {
      case 0 -> { // one byte replaced by a structural character
        h[at] = ALPHABET[random.nextInt(ALPHABET.length)];
        yield h;
      }
      case 1 -> { // one bit flipped
        h[at] ^= (byte) (1 << random.nextInt(8));
        yield h;
      }
      case 2 -> { // a range deleted
        int end = Math.min(h.length, at + 1 + random.nextInt(12));
        byte[] out = Arrays.copyOf(h, h.length - (end - at));
        System.arraycopy(h, end, out, at, h.length - end);
        yield out;
      }
      case 3 -> { // a range repeated
        int end = Math.min(h.length, at + 1 + random.nextInt(24));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(h, 0, end);
        out.write(h, at, h.length - at);
        yield out.toByteArray();
      }
      default -> Arrays.copyOf(h, at); // cut short
    };
  }

  private static byte[] file(byte[] header, byte[] data) {
    ByteBuffer b =
        ByteBuffer.allocate(8 + header.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
    return b.putLong(header.length).put(header).put(data).array();
  }

  @Test
  void everyMutationLoadsOrIsASafetensorsException() {
    Map<String, Tensor> tensors = new LinkedHashMap<>();
    tensors.put("fc.weight", Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3));
    tensors.put("fc.bias", Tensor.of(new float[] {0.5f, -0.5f}, 2));
    tensors.put("steps", Tensor.of(new long[] {12}, 1));
    tensors.put("mask", Tensor.of(new boolean[] {true, false}, 2));
    byte[] valid = Safetensors.serialize(tensors, Map.of("format", "pt", "epoch", "3"));
    int headerLength = (int) ByteBuffer.wrap(valid, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    byte[] header = Arrays.copyOfRange(valid, 8, 8 + headerLength);
    byte[] data = Arrays.copyOfRange(valid, 8 + headerLength, valid.length);

    Random random = new Random(SEED);
    int loaded = 0;
    int rejected = 0;
    List<String> other = new ArrayList<>();
    for (int i = 0; i < CASES; i++) {
      byte[] mutated = file(mutate(header, random), data);
      try {
        Safetensors.deserialize(mutated);
        loaded++;
      } catch (SafetensorsException e) {
        assertTrue(e.getMessage().startsWith("<bytes>: "), e.getMessage());
        rejected++;
      } catch (RuntimeException e) {
        other.add("case " + i + ": " + e);
      }
    }
    System.out.println(
        "header fuzz: " + CASES + " cases, " + loaded + " loaded, " + rejected + " rejected");
    assertEquals(List.of(), other, "exceptions other than SafetensorsException");
    assertEquals(CASES, loaded + rejected);
    assertTrue(loaded > 0 && rejected > 0, loaded + " loaded, " + rejected + " rejected");
  }
}
