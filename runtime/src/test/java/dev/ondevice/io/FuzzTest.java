package dev.ondevice.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import dev.ondevice.data.Idx;
import dev.ondevice.data.IdxFormatException;
import dev.ondevice.nn.Linear;
import dev.ondevice.optim.Adam;
import dev.ondevice.optim.OptimizerState;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded, time-bounded fuzzing of the readers: bit flips, truncations and header mutations of a
 * real checkpoint (with its checksum), an IDX file and a gzipped IDX file. Every case must be a
 * named error (the reader's exception, naming the file), a load identical to the original, or, for
 * the checkpoint, a checksum error; no other exception, and no silently different load from a file
 * with a checksum. The figures are printed, and recorded in docs/checkpoints.md and docs/data.md.
 */
class FuzzTest {
  private static final long SEED = 23;
  private static final int CASES = 400;

  /** The time bound of each file's cases; fewer run on a slow machine, never more. */
  private static final long BUDGET_NANOS = 8_000_000_000L;

  @TempDir Path dir;

  /** What the cases of one file gave. */
  static final class Figures {
    int cases;
    int named;
    int checksum;
    int identical;
    int silent;
    final List<String> unnamed = new ArrayList<>();

    @Override
    public String toString() {
      return cases
          + " cases: "
          + (named + checksum)
          + " named errors ("
          + checksum
          + " of them checksum errors), "
          + identical
          + " identical loads, "
          + silent
          + " silent differences, "
          + unnamed.size()
          + " unnamed errors";
    }
  }

  /** Reads a file: the content to compare, or the reader's own exception. */
  @FunctionalInterface
  interface Reader {
    String read(Path file) throws IOException;
  }

  private static List<byte[]> mutations(byte[] original, int headerEnd, Random random) {
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < CASES; i++) {
      byte[] b = original.clone();
      switch (i % 4) {
        case 0 -> { // a bit flip anywhere
          int at = random.nextInt(b.length);
          b[at] ^= (byte) (1 << random.nextInt(8));
        }
        case 1 -> b = Arrays.copyOf(b, random.nextInt(b.length)); // a truncation
        case 2 -> { // a header byte replaced by a printable character or a digit
          int at = random.nextInt(headerEnd);
          b[at] =
              (byte) (random.nextBoolean() ? '0' + random.nextInt(10) : 32 + random.nextInt(95));
        }
        default -> { // a bit flip in the header
          int at = random.nextInt(headerEnd);
          b[at] ^= (byte) (1 << random.nextInt(8));
        }
      }
      out.add(b);
    }
    return out;
  }

  private Figures fuzz(
      String name, byte[] original, int headerEnd, Reader reader, Class<? extends Exception> named)
      throws IOException {
    Path file = dir.resolve(name);
    Files.write(file, original);
    String expected = reader.read(file);
    Figures f = new Figures();
    long deadline = System.nanoTime() + BUDGET_NANOS;
    for (byte[] b : mutations(original, headerEnd, new Random(SEED))) {
      if (System.nanoTime() > deadline) {
        break;
      }
      f.cases++;
      Files.write(file, b);
      try {
        if (reader.read(file).equals(expected)) {
          f.identical++;
        } else {
          f.silent++;
        }
      } catch (Exception e) {
        boolean names = e.getMessage() != null && e.getMessage().startsWith(file + ": ");
        if (names && e.getMessage().contains("checksum mismatch")) {
          f.checksum++;
        } else if (names
            && (named.isInstance(e)
                || e instanceof IllegalArgumentException
                || e instanceof IllegalStateException)) {
          f.named++;
        } else {
          f.unnamed.add(e.toString());
        }
      }
    }
    System.out.println("fuzz " + name + ": " + f);
    assertEquals(List.of(), f.unnamed.subList(0, Math.min(5, f.unnamed.size())), "unnamed errors");
    assertTrue(f.cases >= 100, "at least 100 cases ran: " + f);
    return f;
  }

  /**
   * A checkpoint's content as text: every tensor's name, dtype, shape and bits, and the optimizer's
   * metadata.
   */
  private static String describe(Checkpoint c) {
    StringBuilder sb = new StringBuilder();
    c.stateDict()
        .forEach(
            (k, t) ->
                sb.append(k)
                    .append(' ')
                    .append(t.dtype())
                    .append(t.shape())
                    .append(Arrays.toString(t.toDoubleArray()))
                    .append('\n'));
    c.optimizerState()
        .ifPresent(
            s -> {
              s.tensors()
                  .forEach(
                      (k, t) ->
                          sb.append(k)
                              .append(' ')
                              .append(t.dtype())
                              .append(t.shape())
                              .append(Arrays.toString(t.toDoubleArray()))
                              .append('\n'));
              sb.append(s.metadata());
            });
    return sb.toString();
  }

  @Test
  void aCheckpointWithItsChecksumIsNeverReadWrongSilently() throws IOException {
    Linear fc = new Linear(4, 3);
    List<Parameter> ps = fc.parameters();
    Adam adam = new Adam(ps, 0.01);
    for (int i = 0; i < 2; i++) {
      for (Parameter p : ps) {
        p.setGrad(Tensor.onesLike(p));
      }
      adam.step();
    }
    Path file = dir.resolve("source.safetensors");
    Checkpoint.save(file, fc.stateDict(), adam.stateDict());
    byte[] bytes = Files.readAllBytes(file);
    int headerEnd = 8 + (int) ByteBuffer.wrap(bytes, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    Figures f =
        fuzz(
            "ckpt.safetensors",
            bytes,
            headerEnd,
            p -> describe(Checkpoint.load(p, MapLocation.to(Device.cpu()))),
            SafetensorsException.class);
    assertEquals(0, f.silent, "with a checksum, no silent difference: " + f);
    assertTrue(f.checksum > 0, "some cases were caught by the checksum alone: " + f);

    // The strict restore accepts every identical load: an optimizer restored from the original
    // works.
    Adam restored = new Adam(new Linear(4, 3).parameters(), 0.5);
    OptimizerState state =
        Checkpoint.load(file, MapLocation.to(Device.cpu())).optimizerState().orElseThrow();
    restored.loadStateDict(state);
    assertEquals(0.01, restored.learningRate());
  }

  private static byte[] idx() {
    ByteBuffer b = ByteBuffer.allocate(4 + 12 + 10 * 4 * 4).order(ByteOrder.BIG_ENDIAN);
    b.put(new byte[] {0, 0, 0x08, 3}).putInt(10).putInt(4).putInt(4);
    Random random = new Random(SEED);
    while (b.hasRemaining()) {
      b.put((byte) random.nextInt(256));
    }
    return b.array();
  }

  private static String describe(Tensor t) {
    return t.dtype() + " " + t.shape() + " " + Arrays.toString(t.toLongArray());
  }

  @Test
  void anIdxFileGivesNamedErrorsOnly() throws IOException {
    Figures f = fuzz("plain.idx", idx(), 16, p -> describe(Idx.read(p)), IdxFormatException.class);
    assertTrue(f.named > 0 && f.identical + f.silent > 0, f.toString());
  }

  @Test
  void aGzippedIdxFileIsNeverReadWrongSilently() throws IOException {
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (OutputStream out = new GZIPOutputStream(gz)) {
      out.write(idx());
    }
    byte[] bytes = gz.toByteArray();
    // gzip's own header is 10 bytes; its CRC-32 guards the rest.
    Figures f =
        fuzz("gzipped.idx.gz", bytes, 10, p -> describe(Idx.read(p)), IdxFormatException.class);
    assertEquals(0, f.silent, "gzip's CRC-32 leaves no silent difference: " + f);
  }
}
