package dev.ondevice.optim;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * Gradient clipping, between {@code backward()} and the optimizer's {@code step()}: PyTorch's
 * {@code torch.nn.utils.clip_grad_norm_} and {@code clip_grad_value_}. Both work on the parameters'
 * devices and never wait for them: the total norm is returned as a 0-dim tensor, read it with
 * {@code item()} only when you need the number.
 */
public final class Gradients {
  /** Added to the norm before dividing, as PyTorch does, so that a zero gradient stays zero. */
  private static final double EPSILON = 1e-6;

  private Gradients() {}

  /**
   * Scales the gradients of {@code parameters} in place so that their total 2-norm (the norm of all
   * of them concatenated) is at most {@code maxNorm}; gradients whose total norm is already within
   * it are left as they are (the scale is {@code min(1, maxNorm / (norm + 1e-6))}). Parameters
   * without a gradient are skipped. As in PyTorch, {@code maxNorm} may be 0 (every gradient becomes
   * 0) or infinite (nothing is clipped: a way to measure the norm).
   *
   * @return the total norm before clipping, a 0-dim tensor on the device of the first gradient (0
   *     on the CPU when no parameter has one)
   * @throws IllegalArgumentException if {@code maxNorm} is negative or NaN
   */
  public static Tensor clipNorm(Iterable<? extends Parameter> parameters, double maxNorm) {
    if (!(maxNorm >= 0)) {
      throw new IllegalArgumentException("clipNorm: maxNorm must be a number >= 0, got " + maxNorm);
    }
    List<Tensor> grads = gradients(parameters);
    if (grads.isEmpty()) {
      return Tensor.scalar(0.0);
    }
    Device device = grads.get(0).device();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor squares = null;
      for (Tensor g : grads) {
        Tensor s = g.square().sum().to(device);
        squares = squares == null ? s : squares.add(s);
      }
      Tensor norm = squares.sqrt();
      Tensor scale = norm.add(EPSILON).reciprocal().mul(maxNorm).clampMax(1.0);
      for (Tensor g : grads) {
        g.muli(scale.to(g.device()));
      }
      return norm;
    }
  }

  /**
   * Clamps every gradient element of {@code parameters} to {@code [-clip, clip]} in place.
   * Parameters without a gradient are skipped.
   *
   * @throws IllegalArgumentException if {@code clip} is negative or not a number
   */
  public static void clipValue(Iterable<? extends Parameter> parameters, double clip) {
    if (!(clip >= 0)) {
      throw new IllegalArgumentException(
          "clipValue: clip must be a non-negative number, got " + clip);
    }
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Tensor g : gradients(parameters)) {
        g.copyFrom(g.clamp(-clip, clip));
      }
    }
  }

  private static List<Tensor> gradients(Iterable<? extends Parameter> parameters) {
    List<Tensor> grads = new ArrayList<>();
    for (Parameter p : parameters) {
      if (p.grad() != null) {
        grads.add(p.grad());
      }
    }
    return grads;
  }
}
