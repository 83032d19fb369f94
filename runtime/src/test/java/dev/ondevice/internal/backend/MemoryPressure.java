package dev.ondevice.internal.backend;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.DeviceOutOfMemoryException;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The child process of {@link MemoryPressureTest}, run under a small {@code
 * -XX:MaxDirectMemorySize}: drops large tensors and then allocates many small ones (which needs the
 * cache given back), then asks for more than the limit (which must be a catchable exception).
 * Prints one line per outcome.
 */
public final class MemoryPressure {
  private MemoryPressure() {}

  /** {@code args[0]}: the direct-memory limit in MiB, as the parent set it. */
  public static void main(String[] args) {
    long limitMiB = Long.parseLong(args[0]);
    // Large tensors, three quarters of the limit, dropped: their blocks go to the cache.
    Tensor[] large = new Tensor[3];
    for (int i = 0; i < large.length; i++) {
      large[i] = Tensor.ones(Shape.of((limitMiB / 4) << 18), DType.FLOAT32, Device.cpu());
    }
    Arrays.fill(large, null);
    UnreachableMemory.collect(HostAllocator::liveBytes);
    System.out.println(
        "cached MiB after dropping them: " + HostAllocator.cachedBytes() / (1 << 20));
    // Small tensors, as much in all: only fresh memory serves them.
    List<Tensor> small = new ArrayList<>();
    for (int i = 0; i < 3 * limitMiB / 4; i++) {
      small.add(Tensor.ones(Shape.of(1 << 18), DType.FLOAT32, Device.cpu()));
    }
    System.out.println("small tensors: " + small.size() + " of 1 MiB");
    small.clear();
    try {
      Tensor.ones(Shape.of((2 * limitMiB) << 18), DType.FLOAT32, Device.cpu());
      System.out.println("too large: allocated");
    } catch (DeviceOutOfMemoryException e) {
      System.out.println("too large: " + e.getMessage());
    }
    Tensor after = Tensor.ones(Shape.of((limitMiB / 2) << 18), DType.FLOAT32, Device.cpu());
    System.out.println("after: " + after.sum().item());
  }
}
