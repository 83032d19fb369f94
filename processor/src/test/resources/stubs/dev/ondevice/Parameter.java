package dev.ondevice;

/** Stub of the runtime's Parameter. */
public class Parameter extends Tensor {
  public Parameter(Tensor data) {}
}
