package dev.ondevice;

import dev.ondevice.annotations.ReturnsDevice;

/** Stub of the runtime's Device. */
public final class Device {
  @ReturnsDevice(ReturnsDevice.Source.CPU)
  public static Device cpu() {
    return null;
  }

  @ReturnsDevice(ReturnsDevice.Source.CUDA_INDEX)
  public static Device cuda(int index) {
    return null;
  }

  @ReturnsDevice(ReturnsDevice.Source.PARSED)
  public static Device parse(String spec) {
    return null;
  }

  @ReturnsDevice(ReturnsDevice.Source.RUNTIME)
  public static Device cudaIfAvailable() {
    return null;
  }

  public boolean isCuda() {
    return false;
  }
}
