package dev.ondevice;

import dev.ondevice.annotations.HostSync;

/** Stub of the runtime's Cuda. */
public final class Cuda {
  @HostSync
  public static void synchronize() {}

  public static boolean isAvailable() {
    return false;
  }
}
