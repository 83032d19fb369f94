package dev.ondevice.nn;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;

/**
 * Layer normalisation over the trailing dimensions: PyTorch's {@code nn.LayerNorm}. Each input is
 * normalised with the mean and biased variance of its last {@code normalizedShape.rank()}
 * dimensions, which must equal {@code normalizedShape}, then scaled by {@code weight} (ones) and
 * shifted by {@code bias} (zeros), both of {@code normalizedShape}, when elementwise-affine. The
 * same computation in training and evaluation mode.
 */
public class LayerNorm extends Layer {
  final Parameter weight;
  final Parameter bias;
  private final Shape normalizedShape;
  private final double eps;

  /**
   * Normalises over the last dimension, of size {@code normalizedSize}, with PyTorch's defaults, on
   * the CPU.
   */
  public LayerNorm(int normalizedSize) {
    this(Shape.of(normalizedSize), 1e-5, true, Device.cpu());
  }

  /** As {@link #LayerNorm(int)}, created directly on {@code device}. */
  public LayerNorm(int normalizedSize, Device device) {
    this(Shape.of(normalizedSize), 1e-5, true, device);
  }

  /**
   * A layer created on {@code device}.
   *
   * @param normalizedShape the trailing shape normalised over, at least one positive size
   * @param eps added to the variance before the square root
   * @param elementwiseAffine whether to learn a weight and a bias of {@code normalizedShape}
   */
  public LayerNorm(Shape normalizedShape, double eps, boolean elementwiseAffine, Device device) {
    if (normalizedShape.rank() == 0 || normalizedShape.numel() == 0 || !(eps > 0)) {
      throw new IllegalArgumentException(
          "LayerNorm: normalizedShape must have at least one dimension and no zero"
              + " size, and eps must be positive, got "
              + normalizedShape
              + " and eps="
              + eps);
    }
    this.normalizedShape = normalizedShape;
    this.eps = eps;
    this.weight = elementwiseAffine ? new Parameter(Tensor.ones(normalizedShape, device)) : null;
    this.bias = elementwiseAffine ? new Parameter(Tensor.zeros(normalizedShape, device)) : null;
  }

  /** The scale, of {@code normalizedShape}, or null without affine parameters. */
  public Parameter weight() {
    return weight;
  }

  /** The shift, of {@code normalizedShape}, or null without affine parameters. */
  public Parameter bias() {
    return bias;
  }

  /**
   * Normalises {@code x} over its trailing dimensions.
   *
   * @throws IllegalArgumentException if the trailing shape of {@code x} is not {@code
   *     normalizedShape}
   */
  @Override
  public Tensor forward(Tensor x) {
    int k = normalizedShape.rank();
    if (!trailingShapeMatches(x)) {
      throw new IllegalArgumentException(
          "LayerNorm: expected an input whose last "
              + k
              + " dimension(s) are "
              + normalizedShape
              + ", got shape "
              + x.shape());
    }
    int[] dims = new int[k];
    for (int i = 0; i < k; i++) {
      dims[i] = x.dim() - k + i;
    }
    Tensor normalized = x.sub(x.mean(dims, true)).mul(x.var(dims, false, true).add(eps).rsqrt());
    return weight == null ? normalized : normalized.mul(weight).add(bias);
  }

  private boolean trailingShapeMatches(Tensor x) {
    int k = normalizedShape.rank();
    if (x.dim() < k) {
      return false;
    }
    for (int i = 0; i < k; i++) {
      if (x.size(x.dim() - k + i) != normalizedShape.get(i)) {
        return false;
      }
    }
    return true;
  }

  @Override
  protected String describe() {
    return normalizedShape + ", eps=" + eps + ", elementwise_affine=" + (weight != null);
  }
}
