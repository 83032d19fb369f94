package dev.ondevice;

import java.util.stream.Stream;

/**
 * The devices op tests run on: the CPU and an emulated {@code cuda:0} (surefire starts the JVM
 * with {@code -Dondevice.emulatedCudaDevices=2}).
 */
final class TestDevices {
  private TestDevices() {}

  /** For {@code @MethodSource("dev.ondevice.TestDevices#all")}. */
  static Stream<Device> all() {
    return Stream.of(Device.cpu(), Device.cuda(0));
  }
}
