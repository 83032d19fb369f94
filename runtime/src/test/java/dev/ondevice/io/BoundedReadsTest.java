package dev.ondevice.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Idx;
import dev.ondevice.data.IdxFormatException;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads that trust no declared size: the IDX header is checked against the file and the widened
 * tensor before anything is allocated, gzipped data is read as it arrives, and no read holds a
 * hidden direct buffer the size of the data.
 */
class BoundedReadsTest {
  private static final int MB = 1 << 20;

  @TempDir Path dir;

  private static byte[] idxHeader(int type, int... dims) {
    ByteBuffer b = ByteBuffer.allocate(4 + 4 * dims.length).order(ByteOrder.BIG_ENDIAN);
    b.put((byte) 0).put((byte) 0).put((byte) type).put((byte) dims.length);
    for (int d : dims) {
      b.putInt(d);
    }
    return b.array();
  }

  private static long directMemoryUsed() {
    return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
        .filter(p -> p.getName().equals("direct"))
        .mapToLong(BufferPoolMXBean::getMemoryUsed)
        .sum();
  }

  @Test
  void aSmallIdxFileDeclaringGigabytesFailsBeforeAllocating() throws IOException {
    Path huge = dir.resolve("huge.idx");
    Files.write(huge, ByteBuffer.allocate(16).put(idxHeader(0x08, Integer.MAX_VALUE - 8)).array());
    IdxFormatException e = assertThrows(IdxFormatException.class, () -> Idx.read(huge));
    assertEquals(
        huge
            + ": sizes [2147483639] of type 0x08 (unsigned byte) make a int64 tensor of 17179869112 bytes,"
            + " more than a tensor of this runtime can hold (2 GiB)",
        e.getMessage());

    Path declared = dir.resolve("declared.idx");
    byte[] file = new byte[100_000];
    System.arraycopy(idxHeader(0x0D, 1 << 28), 0, file, 0, 8);
    Files.write(declared, file);
    e = assertThrows(IdxFormatException.class, () -> Idx.read(declared));
    assertEquals(
        declared
            + ": truncated: the header declares sizes [268435456] of type 0x0D (float), 1073741824 bytes"
            + " of data, but only 99992 follow",
        e.getMessage());
  }

  @Test
  void aGzippedIdxFileDeclaringGigabytesFailsAfterItsRealData() throws IOException {
    Path gz = dir.resolve("declared.idx.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(idxHeader(0x0D, 1 << 28));
      out.write(new byte[100_000]);
    }
    long before = directMemoryUsed();
    IdxFormatException e = assertThrows(IdxFormatException.class, () -> Idx.read(gz));
    assertEquals(
        gz
            + ": truncated: the header declares sizes [268435456] of type 0x0D (float), 1073741824 bytes of"
            + " data, but only 100000 follow",
        e.getMessage());
    assertTrue(
        directMemoryUsed() - before < MB,
        "no direct memory kept: " + (directMemoryUsed() - before));
  }

  @Test
  void readingALargeIdxFileKeepsNoDirectBufferOfItsSize() throws IOException {
    int n = 8 * MB;
    ByteBuffer data = ByteBuffer.allocate(4 * n).order(ByteOrder.BIG_ENDIAN);
    for (int i = 0; i < n; i++) {
      data.putFloat(i * 4, i);
    }
    Path file = dir.resolve("large.idx");
    try (OutputStream out = Files.newOutputStream(file)) {
      out.write(idxHeader(0x0D, n));
      out.write(data.array());
    }
    long before = directMemoryUsed();
    Tensor t = Idx.read(file);
    long kept = directMemoryUsed() - before;
    assertTrue(
        kept < 4L * n + 4 * MB,
        "the tensor's " + 4L * n + " bytes and no hidden copy; kept " + kept);
    assertEquals(Shape.of(n), t.shape());
    assertEquals(n - 1f, t.toFloatArray()[n - 1]);
  }

  @Test
  void aCheckpointLoadsStraightIntoItsTensors() throws IOException {
    int n = 8 * MB;
    Tensor big = Tensor.arange(0, n, 1, DType.FLOAT32, Device.cpu());
    Path file = dir.resolve("big.safetensors");
    Safetensors.save(Map.of("w", big, "f16", Tensor.ones(3)), null, file);
    long before = directMemoryUsed();
    Safetensors.Contents c = Safetensors.load(file);
    long kept = directMemoryUsed() - before;
    assertTrue(
        kept < 4L * n + 4 * MB,
        "the tensor's " + 4L * n + " bytes and no hidden copy; kept " + kept);
    assertArrayEquals(big.toFloatArray(), c.tensors().get("w").toFloatArray());
  }
}
