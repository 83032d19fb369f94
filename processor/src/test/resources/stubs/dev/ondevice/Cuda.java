package dev.ondevice;

import dev.ondevice.annotations.HostSync;

/** Stub of the runtime's Cuda. */
public final class Cuda {
  @HostSync
  public static void synchronize() {}

  public static boolean isAvailable() {
    return false;
  }

  /** Stands for the runtime's Checkpoint.restore: copies values into the model where it is. */
  public static void restore(@dev.ondevice.annotations.KeepsDevice dev.ondevice.nn.Model model) {}
}
