package dev.ondevice;

/** Stub of the runtime's Tensor: the processor sees only the type. */
public class Tensor {
  public Tensor to(Device device) {
    return this;
  }
}
