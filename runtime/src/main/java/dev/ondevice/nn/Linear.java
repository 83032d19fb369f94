package dev.ondevice.nn;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;

/**
 * {@code y = x W^T + b}: PyTorch's {@code nn.Linear}, initialised as PyTorch does (weights and bias
 * uniform on {@code [-1/sqrt(in), 1/sqrt(in)]}).
 */
public class Linear extends Layer {
  final Parameter weight;
  final Parameter bias;

  /** A layer with a bias, created on the CPU. */
  public Linear(int inFeatures, int outFeatures) {
    this(inFeatures, outFeatures, true, Device.cpu());
  }

  /** A layer with a bias, created directly on {@code device}. */
  public Linear(int inFeatures, int outFeatures, Device device) {
    this(inFeatures, outFeatures, true, device);
  }

  /** A layer created directly on {@code device}. */
  public Linear(int inFeatures, int outFeatures, boolean bias, Device device) {
    if (inFeatures <= 0 || outFeatures <= 0) {
      throw new IllegalArgumentException(
          "Linear: feature counts must be positive, got in=" + inFeatures + ", out=" + outFeatures);
    }
    double bound = 1 / Math.sqrt(inFeatures);
    this.weight = new Parameter(Init.uniform(Shape.of(outFeatures, inFeatures), bound, device));
    this.bias = bias ? new Parameter(Init.uniform(Shape.of(outFeatures), bound, device)) : null;
  }

  /** The weight, shape {@code [out, in]}. */
  public Parameter weight() {
    return weight;
  }

  /** The bias, shape {@code [out]}, or null. */
  public Parameter bias() {
    return bias;
  }

  /** Applies the layer to {@code x} of shape {@code [..., in]}. */
  @Override
  public Tensor forward(Tensor x) {
    return Tensor.linear(x, weight, bias);
  }

  /**
   * {@code forward(x).relu()} as one op, {@link Tensor#linearRelu}: the same values and gradients,
   * with the relu in the matrix product's output pass and one tensor less. {@link Sequential} uses
   * it for this class followed by a {@link ReLU}.
   */
  public Tensor forwardRelu(Tensor x) {
    return Tensor.linearRelu(x, weight, bias);
  }

  @Override
  protected String describe() {
    return "in_features="
        + weight.shape().get(1)
        + ", out_features="
        + weight.shape().get(0)
        + ", bias="
        + (bias != null);
  }
}
