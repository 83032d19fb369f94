package dev.ondevice.io;

/** Stub of the runtime's MapLocation: where a checkpoint's tensors are loaded. */
public final class MapLocation {
  public static MapLocation to(dev.ondevice.Device device) {
    return null;
  }
}
