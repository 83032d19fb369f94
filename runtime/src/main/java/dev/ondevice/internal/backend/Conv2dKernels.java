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
   * The input's gradient {@code gradInput} ({@code [N,C,H,W]}) from the output's {@code gradOut}.
   */
  void backwardData(Strided gradOut, Strided weight, Window2d window, Strided gradInput);

  /**
   * The weight's gradient {@code gradWeight} ({@code [O,C,kh,kw]}) and the bias's {@code gradBias}
   * ({@code [O]}, or null when no bias needs one) from the input and the output's {@code gradOut}.
   */
  void backwardWeights(
      Strided input, Strided gradOut, Window2d window, Strided gradWeight, Strided gradBias);
}
