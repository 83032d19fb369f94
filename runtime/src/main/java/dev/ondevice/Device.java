package dev.ondevice;

import dev.ondevice.annotations.ReturnsDevice;
import java.util.Objects;

/**
 * Where a tensor lives: {@code cpu}, {@code cuda} (the current CUDA device) or {@code cuda:N}.
 *
 * <p>Devices are values: two devices are equal when their type and index are equal. As in PyTorch,
 * {@code cuda} without an index is a different value from {@code cuda:0}; tensors always report an
 * indexed device.
 *
 * <pre>{@code
 * Device device = Device.cudaIfAvailable();      // device-agnostic code
 * Tensor x = Tensor.randn(1000, 1000, device);   // created directly on it
 * }</pre>
 */
public final class Device {
  private static final Device CPU = new Device(DeviceType.CPU, -1);
  private static final Device CUDA_CURRENT = new Device(DeviceType.CUDA, -1);
  private static final int MAX_INDEX = Short.MAX_VALUE;

  private final DeviceType type;
  private final int index;

  private Device(DeviceType type, int index) {
    this.type = type;
    this.index = index;
  }

  /** The host. */
  @ReturnsDevice(ReturnsDevice.Source.CPU)
  public static Device cpu() {
    return CPU;
  }

  /** The current CUDA device ({@code cuda}); tensors moved there land on {@code cuda:0}. */
  @ReturnsDevice(ReturnsDevice.Source.CURRENT_CUDA)
  public static Device cuda() {
    return CUDA_CURRENT;
  }

  /** The CUDA device with the given index ({@code cuda:N}). */
  @ReturnsDevice(ReturnsDevice.Source.CUDA_INDEX)
  public static Device cuda(int index) {
    if (index < 0 || index > MAX_INDEX) {
      throw new IllegalArgumentException(
          "CUDA device index must be between 0 and " + MAX_INDEX + ", got " + index);
    }
    return new Device(DeviceType.CUDA, index);
  }

  /**
   * The device-agnostic default: {@code cuda:0} when CUDA is available (a real or an emulated
   * device), else {@code cpu}. PyTorch's {@code torch.device('cuda' if torch.cuda.is_available()
   * else 'cpu')}.
   */
  @ReturnsDevice(ReturnsDevice.Source.RUNTIME)
  public static Device cudaIfAvailable() {
    return Cuda.isAvailable() ? cuda(0) : CPU;
  }

  /**
   * Parses a device string with PyTorch's grammar: {@code cpu}, {@code cuda} or {@code cuda:N} with
   * N a non-negative integer without leading zeros.
   *
   * @throws IllegalArgumentException naming what is wrong with the string
   */
  @ReturnsDevice(ReturnsDevice.Source.PARSED)
  public static Device parse(String spec) {
    return DeviceParser.parse(spec);
  }

  static Device of(DeviceType type, int index) {
    if (type == DeviceType.CPU) {
      return CPU;
    }
    return index < 0 ? CUDA_CURRENT : cuda(index);
  }

  /** The device type. */
  public DeviceType type() {
    return type;
  }

  /** The index, or -1 where none was given ({@code cpu}, {@code cuda}). */
  public int index() {
    return index;
  }

  /** Whether an index was given. */
  public boolean hasIndex() {
    return index >= 0;
  }

  /** Whether this is the host. */
  public boolean isCpu() {
    return type == DeviceType.CPU;
  }

  /** Whether this is a CUDA device. */
  public boolean isCuda() {
    return type == DeviceType.CUDA;
  }

  /**
   * This device with its index filled in: {@code cuda} becomes the current CUDA device ({@code
   * cuda:0}); other devices are returned as they are.
   */
  @ReturnsDevice(ReturnsDevice.Source.OF_RECEIVER)
  public Device resolved() {
    return equals(CUDA_CURRENT) ? cuda(0) : this;
  }

  /**
   * A description for people: the device string, followed by {@code (emulated)} for an emulated
   * CUDA device, as in {@code cuda:0 (emulated)}. Asks {@link Cuda} whether emulation is in place;
   * it opens no device.
   */
  public String describe() {
    return Cuda.describe(this);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Device d && d.type == type && d.index == index;
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, index);
  }

  /**
   * The device string, as accepted by {@link #parse}: {@code cpu}, {@code cuda}, {@code cuda:0}.
   */
  @Override
  public String toString() {
    return index < 0 ? type.label() : type.label() + ":" + index;
  }
}
