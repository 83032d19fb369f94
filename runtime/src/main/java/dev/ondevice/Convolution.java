package dev.ondevice;

import dev.ondevice.annotations.SameDevice;
import dev.ondevice.internal.backend.Conv2dKernels;
import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.backend.Window2d;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * 2-d convolution, differentiable: PyTorch's {@code torch.nn.functional.conv2d} without dilation
 * and groups. The layer {@code dev.ondevice.nn.Conv2d} calls it; call it directly for a convolution
 * with weights of your own.
 *
 * <p>It runs as one matrix product per call: the input is unfolded (im2col) into a {@code [C*kh*kw,
 * N*OH*OW]} matrix, the whole batch side by side, and multiplied by the weight viewed as {@code [O,
 * C*kh*kw]}. The backward pass is two more products and a fold (col2im), which is skipped when the
 * input needs no gradient.
 */
@SameDevice
public final class Convolution {
  private static final String FREED_TEMPORARY = "inside conv2d, which used it as a temporary";

  private Convolution() {}

  /**
   * The cross-correlation of {@code input} ({@code [N, C, H, W]}, or {@code [C, H, W]}) with {@code
   * weight} ({@code [O, C, kh, kw]}), plus {@code bias} ({@code [O]}, or null), with a square
   * stride and zero padding. The result is {@code [N, O, OH, OW]} with {@code OH = (H + 2 * padding
   * - kh) / stride + 1} (likewise OW), in the promoted floating dtype of the operands.
   *
   * @throws DeviceMismatchException if the weight or the bias is on another device than the input
   * @throws IllegalArgumentException on wrong ranks, a channel or bias size mismatch, a
   *     non-floating operand, or a kernel larger than the padded input
   */
  public static Tensor conv2d(Tensor input, Tensor weight, Tensor bias, int stride, int padding) {
    checkDevices(input, weight, bias);
    Tensor batch = Images.asBatch("conv2d", input);
    checkWeight(batch, weight, bias);
    Window2d window =
        Images.window("conv2d", weight.data.size(2), weight.data.size(3), stride, padding);
    Images.fits("conv2d", batch, window);
    DType type =
        bias == null
            ? DType.promote(input.dtype(), weight.dtype())
            : DType.promote(DType.promote(input.dtype(), weight.dtype()), bias.dtype());
    Tensor x = batch.to(type);
    Tensor w = weight.to(type);
    Tensor b = bias == null ? null : bias.to(type);
    return Images.likeInput(input, convolve(x, w, b, window));
  }

  private static void checkDevices(Tensor input, Tensor weight, Tensor bias) {
    if (!weight.device().equals(input.device())) {
      throw new DeviceMismatchException(
          input.device(),
          weight.device(),
          "weight",
          "conv2d",
          "If the weight is a model's parameter, move the model where its input is (model.toDevice("
              + input.device()
              + ")), once, before using it, or move the input where the model is");
    }
    if (bias != null && !bias.device().equals(input.device())) {
      throw new DeviceMismatchException(input.device(), bias.device(), "bias", "conv2d");
    }
  }

  private static void checkWeight(Tensor batch, Tensor weight, Tensor bias) {
    if (weight.dim() != 4) {
      throw new IllegalArgumentException(
          "conv2d: weight must be 4-d [out, in, kh, kw], got shape " + weight.shape());
    }
    Checks.floating("conv2d", "weight", weight);
    if (weight.size(1) != batch.size(1)) {
      throw new IllegalArgumentException(
          "conv2d: the input of shape "
              + batch.shape()
              + " has "
              + batch.size(1)
              + " channels but the weight of shape "
              + weight.shape()
              + " expects "
              + weight.size(1));
    }
    if (bias != null && (bias.dim() != 1 || bias.size(0) != weight.size(0))) {
      throw new IllegalArgumentException(
          "conv2d: bias must have shape ["
              + weight.size(0)
              + "] for the weight of"
              + " shape "
              + weight.shape()
              + ", got "
              + bias.shape());
    }
    if (bias != null) {
      Checks.floating("conv2d", "bias", bias);
    }
  }

  /**
   * The convolution of a checked batch, all operands of one dtype; records its gradient. By the
   * backend's direct kernels where it has them for the dtype, else by unfold and matrix products.
   */
  private static Tensor convolve(Tensor x, Tensor w, Tensor b, Window2d window) {
    Optional<Conv2dKernels> direct = x.data.storage().backend().conv2dKernels(x.data.dtype());
    return direct.isPresent()
        ? convolveDirect(direct.get(), x, w, b, window)
        : convolveByProduct(x, w, b, window);
  }

  /**
   * The convolution by a backend's direct kernels: the backward pass reads the input and the weight
   * themselves (made contiguous first where they are not, as temporaries of the op's own).
   */
  private static Tensor convolveDirect(
      Conv2dKernels kernels, Tensor x, Tensor w, Tensor b, Window2d window) {
    Tensor xc;
    Tensor wc;
    Tensor bc;
    Tensor out;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      xc = x.detach().contiguous();
      wc = w.detach().contiguous();
      bc = b == null ? null : b.detach().contiguous();
      int[] sizes = {
        x.data.size(0),
        w.data.size(0),
        window.outHeight(x.data.size(2)),
        window.outWidth(x.data.size(3))
      };
      out = Creation.empty(sizes, x.dtype(), x.device());
      kernels.forward(xc.data, wc.data, bc == null ? null : bc.data, window, out.data);
    }
    if (bc != null && bc.data.storage() != b.data.storage()) {
      bc.data.storage().free(FREED_TEMPORARY);
    }
    Tensor[] owned =
        Stream.of(
                xc.data.storage() != x.data.storage() ? xc : null,
                wc.data.storage() != w.data.storage() ? wc : null)
            .filter(Objects::nonNull)
            .toArray(Tensor[]::new);
    return Node.recordOwning(
        "conv2d",
        out,
        new Tensor[] {x, w, b},
        Node.savedForProduct(x, w),
        owned,
        (g, needs) -> {
          Tensor gc = g.contiguous();
          Tensor gx =
              needs[0] ? Creation.empty(x.data.sizes().clone(), x.dtype(), x.device()) : null;
          Tensor gw =
              needs[1] ? Creation.empty(w.data.sizes().clone(), x.dtype(), x.device()) : null;
          Tensor gb =
              needs[2] ? Creation.empty(new int[] {w.data.size(0)}, x.dtype(), x.device()) : null;
          kernels.backward(
              xc.data,
              wc.data,
              gc.data,
              window,
              gx == null ? null : gx.data,
              gw == null ? null : gw.data,
              gb == null ? null : gb.data);
          return new Tensor[] {gx, gw, gb};
        });
  }

  /** The convolution by unfold (im2col) and one matrix product. */
  private static Tensor convolveByProduct(Tensor x, Tensor w, Tensor b, Window2d window) {
    int n = x.data.size(0);
    int c = x.data.size(1);
    int o = w.data.size(0);
    int oh = window.outHeight(x.data.size(2));
    int ow = window.outWidth(x.data.size(3));
    int k = c * window.kernelH() * window.kernelW();
    int l = oh * ow;
    Tensor columns = Creation.empty(new int[] {k, n * l}, x.dtype(), x.device());
    x.data.storage().backend().unfold2d(x.data, window, windowsOf(columns, n, c, window, oh, ow));
    Tensor weights2d = w.detach().reshape(o, k);
    Tensor out;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor product = LinearAlgebra.mm(weights2d, columns);
      Tensor byChannel = product.view(o, n, l).permute(1, 0, 2);
      Tensor biased = b == null ? byChannel.contiguous() : byChannel.add(b.view(1, o, 1));
      if (biased.data.storage() != product.data.storage()) {
        product.data.storage().free(FREED_TEMPORARY);
      }
      out = biased.view(n, o, oh, ow);
    }
    return Node.recordOwning(
        "conv2d",
        out,
        new Tensor[] {x, w, b},
        new Tensor[] {w},
        new Tensor[] {columns},
        (g, needs) -> {
          Tensor grad2d = g.reshape(n, o, l).permute(1, 0, 2).contiguous().view(o, (long) n * l);
          Tensor gx = null;
          if (needs[0]) {
            Tensor gradColumns = LinearAlgebra.mm(weights2d.t(), grad2d);
            gx = Creation.empty(x.data.sizes().clone(), x.dtype(), x.device());
            x.data
                .storage()
                .backend()
                .fold2d(windowsOf(gradColumns, n, c, window, oh, ow), window, gx.data);
          }
          Tensor gw =
              needs[1] ? LinearAlgebra.mm(grad2d, columns.t()).view(w.shape().toArray()) : null;
          Tensor gb = needs[2] ? rowSums(grad2d) : null;
          return new Tensor[] {gx, gw, gb};
        });
  }

  /**
   * The sums of the rows of a contiguous matrix (the bias gradient), as its product with a column
   * of ones: BLAS's matrix-vector product reads the rows at memory speed, three times as fast as
   * the general reduction.
   */
  private static Tensor rowSums(Tensor m) {
    Tensor ones = Creation.full(Shape.of(m.data.size(1), 1), 1, m.dtype(), m.device());
    return LinearAlgebra.mm(m, ones).view(m.data.size(0));
  }

  /**
   * The {@code [N, C, kh, kw, OH, OW]} windows view of a contiguous {@code [C*kh*kw, N*OH*OW]}
   * column matrix: the layout in which the batch sits side by side for one product.
   */
  private static Strided windowsOf(Tensor columns, int n, int c, Window2d window, int oh, int ow) {
    int l = oh * ow;
    int kw = window.kernelW();
    int kArea = window.kernelH() * kw;
    return columns.data.withLayout(
        columns.data.offset(),
        new int[] {n, c, window.kernelH(), kw, oh, ow},
        new int[] {l, kArea * n * l, kw * n * l, n * l, ow, 1});
  }

  /**
   * The windows of a batch {@code x} ({@code [N, C, H, W]}) as {@code [N, C, kh, kw, OH, OW]}
   * (PyTorch's {@code unfold} before its reshape), contiguous; differentiable.
   */
  static Tensor unfold(Tensor x, Window2d window) {
    int[] sizes = {
      x.data.size(0),
      x.data.size(1),
      window.kernelH(),
      window.kernelW(),
      window.outHeight(x.data.size(2)),
      window.outWidth(x.data.size(3))
    };
    Tensor out = Creation.empty(sizes, x.dtype(), x.device());
    x.data.storage().backend().unfold2d(x.data, window, out.data);
    return Node.record(
        "unfold2d",
        out,
        new Tensor[] {x},
        (g, needs) -> {
          Tensor gx = Creation.empty(x.data.sizes().clone(), g.dtype(), g.device());
          g.data.storage().backend().fold2d(g.data, window, gx.data);
          return new Tensor[] {gx};
        });
  }
}
