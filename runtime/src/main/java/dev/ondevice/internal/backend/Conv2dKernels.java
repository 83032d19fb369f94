package dev.ondevice.internal.backend;

/**
 * Direct 2-d convolution kernels of a backend, for the backends that have them (see {@link
 * Backend#conv2dKernels}); the others convolve by {@link Backend#unfold2d} and a matrix product.
 * Operands are contiguous, of the one dtype the kernels were asked for, on the backend's device:
 * input {@code [N,C,H,W]}, weight {@code [O,C,kh,kw]} (the window's kernel), bias {@code [O]} and
 * output {@code [N,O,OH,OW]} with {@code OH, OW} the window's output sizes. Outputs are
 * overwritten. Internal to the runtime.
 */
public interface Conv2dKernels {
  /** {@code out = conv(input, weight) + bias}; {@code bias} may be null. */
  void forward(Strided input, Strided weight, Strided bias, Window2d window, Strided out);

  /**
   * The gradients of the input ({@code gradInput}, {@code [N,C,H,W]}), the weight ({@code
   * gradWeight}, {@code [O,C,kh,kw]}) and the bias ({@code gradBias}, {@code [O]}) from the
   * output's, {@code gradOut}; each is skipped where its target is null.
   */
  void backward(
      Strided input,
      Strided weight,
      Strided gradOut,
      Window2d window,
      Strided gradInput,
      Strided gradWeight,
      Strided gradBias);
}
