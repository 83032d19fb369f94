package dev.ondevice.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Device;
import dev.ondevice.Tensor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checksum checkpoints carry in their metadata: written, verified, and independent of the
 * header's layout.
 */
class ChecksumTest {
  @TempDir Path dir;

  private Path saved() throws IOException {
    Map<String, Tensor> state = new LinkedHashMap<>();
    state.put("fc.weight", Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3));
    state.put("steps", Tensor.of(7L));
    Path file = dir.resolve("ckpt.safetensors");
    Checkpoint.save(file, state, null);
    return file;
  }

  @Test
  void aCheckpointCarriesTheDocumentedChecksum() throws IOException {
    Path file = saved();
    Safetensors.Contents c = Safetensors.load(file);
    String recorded = c.metadata().get("ondevice/crc32c");
    assertTrue(recorded.matches("[0-9a-f]{8}"), recorded);

    // Recomputed by hand, as docs/checkpoints.md describes it.
    CRC32C crc = new CRC32C();
    new java.util.TreeMap<>(c.metadata())
        .forEach(
            (k, v) -> {
              if (!k.equals("ondevice/crc32c")) {
                crc.update((k + "\0" + v + "\0").getBytes(StandardCharsets.UTF_8));
              }
            });
    crc.update(1);
    crc.update("steps\0I64\0".getBytes(StandardCharsets.UTF_8));
    crc.update("1\0fc.weight\0F32\0".getBytes(StandardCharsets.UTF_8));
    crc.update("2,3\0".getBytes(StandardCharsets.UTF_8));
    byte[] bytes = Files.readAllBytes(file);
    int dataStart =
        8
            + (int)
                java.nio.ByteBuffer.wrap(bytes, 0, 8)
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                    .getLong();
    crc.update(bytes, dataStart, bytes.length - dataStart);
    assertEquals(String.format("%08x", crc.getValue()), recorded);
  }

  @Test
  void aFlippedDataBitIsAChecksumError() throws IOException {
    Path file = saved();
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length - 3] ^= 0x10; // inside fc.weight's last float
    Files.write(file, bytes);
    SafetensorsException e =
        assertThrows(
            SafetensorsException.class, () -> Checkpoint.load(file, MapLocation.to(Device.cpu())));
    assertTrue(
        e.getMessage().startsWith(file + ": checksum mismatch: the file records ondevice/crc32c="),
        e.getMessage());
    assertTrue(
        e.getMessage()
            .endsWith(
                "; it was corrupted after it was written (a bit flip, a partial copy): use"
                    + " another copy"),
        e.getMessage());
  }

  @Test
  void aChangedMetadataValueIsAChecksumError() throws IOException {
    Path file = saved();
    String text = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
    Files.write(
        file,
        text.replace("\"format\":\"pt\"", "\"format\":\"pu\"")
            .getBytes(StandardCharsets.ISO_8859_1));
    SafetensorsException e = assertThrows(SafetensorsException.class, () -> Safetensors.load(file));
    assertTrue(e.getMessage().contains("checksum mismatch"), e.getMessage());
  }

  @Test
  void aRewrittenHeaderKeepsTheChecksumValid() throws IOException {
    Path file = saved();
    Safetensors.Contents c = Safetensors.load(file);
    // Another writer: our plain writer, with the metadata as read (the checksum entry included).
    Path copy = dir.resolve("copy.safetensors");
    Map<String, Tensor> reversed = new LinkedHashMap<>();
    reversed.put("steps", c.tensors().get("steps"));
    reversed.put("fc.weight", c.tensors().get("fc.weight"));
    Safetensors.save(reversed, c.metadata(), copy);
    Safetensors.Contents again = Safetensors.load(copy);
    assertArrayEquals(
        c.tensors().get("fc.weight").toFloatArray(),
        again.tensors().get("fc.weight").toFloatArray());
  }

  @Test
  void theChecksumKeyIsReservedWhenTheSaveWritesOne() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                Safetensors.save(
                    Map.of("w", Tensor.ones(1)),
                    Map.of("ondevice/crc32c", "0"),
                    dir.resolve("x.safetensors"),
                    true));
    assertTrue(
        e.getMessage()
            .endsWith(
                ": the metadata key 'ondevice/crc32c' is reserved for the checksum the save"
                    + " writes"),
        e.getMessage());
  }

  @Test
  void plainSafetensorsFilesHaveNoChecksum() throws IOException {
    Path file = dir.resolve("plain.safetensors");
    Safetensors.save(Map.of("w", Tensor.ones(2)), null, file);
    assertEquals(Map.of(), Safetensors.load(file).metadata());
  }
}
