package dev.ondevice;

import dev.ondevice.annotations.SameDevice;
import dev.ondevice.internal.backend.Window2d;

/**
 * 2-d max and average pooling over square windows, differentiable: PyTorch's {@code
 * torch.nn.functional.max_pool2d} and {@code avg_pool2d} with their defaults (no dilation, floor
 * rounding of the output size, padding counted in averages). The layers {@code
 * dev.ondevice.nn.MaxPool2d} and {@code AvgPool2d} call these.
 *
 * <p>Inputs are {@code [N, C, H, W]} or unbatched {@code [C, H, W]}; the output has {@code OH = (H
 * + 2 * padding - kernel) / stride + 1} rows (likewise columns). Padding must be at most half the
 * kernel, as in PyTorch.
 */
@SameDevice
public final class Pooling {
  private Pooling() {}

  /**
   * The maximum of each {@code kernel x kernel} window, stepping by {@code stride}, over the input
   * padded with {@code padding} rows and columns that never win. A NaN in a window wins it; the
   * gradient flows to the first maximum of each window.
   *
   * @throws IllegalArgumentException on a wrong rank, a non-floating input, invalid sizes, or a
   *     window larger than the padded input
   */
  public static Tensor maxPool2d(Tensor input, int kernel, int stride, int padding) {
    Tensor x = Images.asBatch("maxPool2d", input);
    Window2d window = Images.window("maxPool2d", kernel, stride, padding);
    Images.padAtMostHalfKernel("maxPool2d", window);
    Images.fits("maxPool2d", x, window);
    int[] sizes = {
      x.data.size(0),
      x.data.size(1),
      window.outHeight(x.data.size(2)),
      window.outWidth(x.data.size(3))
    };
    Tensor values = Creation.empty(sizes, x.dtype(), x.device());
    Tensor indices = Creation.empty(sizes.clone(), DType.INT64, x.device());
    x.data.storage().backend().maxPool2d(x.data, window, values.data, indices.data);
    Tensor out =
        Node.recordOwning(
            "maxPool2d",
            values,
            new Tensor[] {x},
            new Tensor[0],
            new Tensor[] {indices},
            (g, needs) -> {
              Tensor gx = Creation.empty(x.data.sizes().clone(), g.dtype(), g.device());
              g.data.storage().backend().maxPool2dBackward(g.data, indices.data, gx.data);
              return new Tensor[] {gx};
            });
    return Images.likeInput(input, out);
  }

  /**
   * The mean of each {@code kernel x kernel} window, stepping by {@code stride}, over the input
   * padded with {@code padding} rows and columns of zeros that count in the mean (PyTorch's {@code
   * count_include_pad=True}).
   *
   * @throws IllegalArgumentException on a wrong rank, a non-floating input, invalid sizes, or a
   *     window larger than the padded input
   */
  public static Tensor avgPool2d(Tensor input, int kernel, int stride, int padding) {
    Tensor x = Images.asBatch("avgPool2d", input);
    Window2d window = Images.window("avgPool2d", kernel, stride, padding);
    Images.padAtMostHalfKernel("avgPool2d", window);
    Images.fits("avgPool2d", x, window);
    Tensor means =
        Convolution.unfold(x, window).sum(new int[] {2, 3}, false).div((double) kernel * kernel);
    return Images.likeInput(input, means);
  }
}
