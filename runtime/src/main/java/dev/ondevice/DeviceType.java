package dev.ondevice;

/** The kinds of device this runtime can place tensors on. */
public enum DeviceType {
  /** The host processor; the default for every tensor created without a device. */
  CPU("cpu"),
  /** An NVIDIA GPU, real or emulated. */
  CUDA("cuda");

  private final String label;

  DeviceType(String label) {
    this.label = label;
  }

  /** The name used in device strings, as in PyTorch: {@code "cpu"} or {@code "cuda"}. */
  public String label() {
    return label;
  }

  @Override
  public String toString() {
    return label;
  }
}
