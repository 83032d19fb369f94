package dev.ondevice.internal.backend;

/**
 * A device as the backend layer knows it: a device type ({@code "cpu"}, {@code "cuda"}) and an
 * index (-1 for the CPU). The core maps the public {@code dev.ondevice.Device} onto it, as c10's
 * {@code Device} sits below {@code torch.device}; backends are registered by its type.
 *
 * @param type the device type, as in device strings
 * @param index the index, or -1 where the type has one device
 */
public record DeviceId(String type, int index) {
  /** The device type of the host. */
  public static final String CPU_TYPE = "cpu";

  /** The device type of CUDA devices, real or emulated. */
  public static final String CUDA_TYPE = "cuda";

  /** The host. */
  public static final DeviceId CPU = new DeviceId(CPU_TYPE, -1);

  /** CUDA device {@code index}. */
  public static DeviceId cuda(int index) {
    return new DeviceId(CUDA_TYPE, index);
  }

  /** Whether this is the host. */
  public boolean isCpu() {
    return type.equals(CPU_TYPE);
  }

  /** Whether this is a CUDA device. */
  public boolean isCuda() {
    return type.equals(CUDA_TYPE);
  }

  /** This device with its index filled in: {@code cuda} becomes {@code cuda:0}. */
  public DeviceId resolved() {
    return index < 0 && !isCpu() ? new DeviceId(type, 0) : this;
  }

  /** The device string: {@code cpu}, {@code cuda:0}. */
  @Override
  public String toString() {
    return index < 0 ? type : type + ":" + index;
  }
}
