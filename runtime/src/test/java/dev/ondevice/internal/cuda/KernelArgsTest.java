package dev.ondevice.internal.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The C layout of the packed kernel arguments: offsets, padding and the limits of a View. */
class KernelArgsTest {
  @Test
  void dimsAndViewsHaveTheLayoutOfTheirStructs() {
    KernelArgs a =
        new KernelArgs()
            .reset()
            .dims(new int[] {2, 3})
            .view(0x1000, new int[] {3, 1})
            .i32(7)
            .f64(1.5);
    ByteBuffer b = a.buffer();
    assertEquals(2, b.getInt(0), "rank");
    assertEquals(6, b.getInt(4), "numel");
    assertEquals(2, b.getInt(8));
    assertEquals(3, b.getInt(12));
    assertEquals(1, b.getInt(16), "unused sizes are 1");
    assertEquals(0x1000, b.getLong(48), "the View starts at 48, 8-aligned");
    assertEquals(3, b.getInt(56));
    assertEquals(1, b.getInt(60));
    assertEquals(0, b.getInt(64), "unused strides are 0");
    assertEquals(7, b.getInt(96), "an int after the View");
    assertEquals(1.5, b.getDouble(104), "a double is aligned to 8: 4 bytes of padding");
    assertEquals(112, a.size());
  }

  @Test
  void theStructIsPaddedToEightBytes() {
    assertEquals(8, new KernelArgs().reset().i32(1).size());
    assertEquals(16, new KernelArgs().reset().i32(1).i32(2).i32(3).size());
    assertEquals(0, new KernelArgs().reset().size());
  }

  @Test
  void moreThanTenDimensionsAreRefusedWithAFix() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new KernelArgs().reset().dims(new int[11]));
    assertEquals(
        "CUDA kernels take tensors of at most 10 dimensions that cannot be merged, got 11"
            + " [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]; make the tensor contiguous first",
        e.getMessage());
  }
}
