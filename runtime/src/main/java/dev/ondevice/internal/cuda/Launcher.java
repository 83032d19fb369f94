package dev.ondevice.internal.cuda;

import static dev.ondevice.internal.cuda.CudaDriver.check;

import jcuda.Pointer;
import jcuda.driver.JCudaDriver;

/**
 * Launches kernels on a device's stream. Each thread packs arguments into a buffer of its own,
 * reused for every launch (the driver copies the arguments when the launch is queued), so that a
 * launch allocates nothing. Internal to the runtime.
 */
final class Launcher {
  private static final ThreadLocal<Slot> SLOT = ThreadLocal.withInitial(Slot::new);

  private Launcher() {}

  /** The calling thread's argument buffer, emptied. */
  static KernelArgs args() {
    return SLOT.get().args.reset();
  }

  /**
   * Queues {@code k} with the arguments last packed into {@link #args()} on {@code device}'s
   * stream.
   *
   * @throws IllegalStateException if the packed arguments do not have the size the kernel's PTX
   *     declares: the Java side and the CUDA structs disagree
   */
  static void launch(CudaDevice device, KernelLibrary.Kernel k, LaunchConfig c) {
    Slot slot = SLOT.get();
    int packed = slot.args.size();
    if (packed != k.argumentBytes()) {
      throw new IllegalStateException(
          "The CUDA kernel "
              + k.name()
              + " takes "
              + k.argumentBytes()
              + " bytes of arguments but "
              + packed
              + " were packed: KernelArgs and ondevice.cuh disagree");
    }
    device.makeCurrent();
    check(
        JCudaDriver.cuLaunchKernel(
            k.function(),
            c.gridX(),
            c.gridY(),
            c.gridZ(),
            c.block(),
            1,
            1,
            0,
            device.stream(),
            slot.params,
            null),
        "cuLaunchKernel(" + k.name() + ")",
        device.device());
  }

  /** One thread's argument buffer and the kernel parameter list that points at it. */
  private static final class Slot {
    final KernelArgs args = new KernelArgs();
    final Pointer params = Pointer.to(Pointer.toBuffer(args.buffer()));
  }
}
