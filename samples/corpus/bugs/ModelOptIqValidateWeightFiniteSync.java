package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.Adam;

/**
 * NVIDIA Model-Optimizer's GGML IQ2_XS fake quantization for quantization-aware training: a quantized
 * linear layer passes its weight through its weight quantizer on every forward; the quantizer
 * calls {@code iq2_xs_fake_quant}, which encodes the weight with {@code quantize_iq2_xs} and decodes
 * it again; the encoder first checks the weight with {@code ggml/common.py}'s {@code
 * validate_weight} (non-empty, last dimension a multiple of the 256-value GGML block, floating
 * point, finite) and then scales each block by its absolute maximum.
 *
 * <p>Source: https://github.com/NVIDIA/Model-Optimizer/pull/2446 (review thread on
 * modelopt/torch/quantization/ggml/common.py; the same finding on
 * https://github.com/NVIDIA/Model-Optimizer/pull/2443)
 *
 * <p>Bug: {@code if not torch.isfinite(weight).all():} in {@code validate_weight} is a Python
 * {@code if} on a CUDA tensor, a device-to-host sync (and an extra full read of the weight) on
 * every call; since the fake-quant forward calls the encoder each step during QAT, every
 * quantized layer's forward blocks the host; the review asks to fold the check into the per-block
 * {@code amax} or make it opt-in.
 *
 * <p>Outcome: completes (costs time)
 */
public final class ModelOptIqValidateWeightFiniteSync {
  private ModelOptIqValidateWeightFiniteSync() {}

  /** modelopt/torch/quantization/ggml/common.py. */
  static final class GgmlCommon {
    private GgmlCommon() {}

    static final int GGML_BLOCK_SIZE = 256;

    static void validateWeight(Tensor weight, String formatName) {
      if (weight.numel() == 0) {
        throw new IllegalArgumentException(formatName + " requires a non-empty weight");
      }
      if (weight.dim() == 0 || weight.size(-1) % GGML_BLOCK_SIZE != 0) {
        throw new IllegalArgumentException(formatName + " requires the last weight dimension to be divisible by "
            + GGML_BLOCK_SIZE + ", got shape " + weight.shape());
      }
      if (!weight.dtype().isFloatingPoint()) {
        throw new IllegalArgumentException(formatName + " requires a floating-point weight, got " + weight.dtype());
      }
      if (weight.abs().lt(Double.POSITIVE_INFINITY).logicalNot().max().itemAsBoolean()) { // bug: per-step
        throw new IllegalArgumentException(formatName + " requires a finite weight");
      }
    }
  }

  /** The IQ2_XS codec, its 2-bit grid search reduced to rounding each block onto four levels of its amax. */
  static final class Iq2Xs {
    private Iq2Xs() {}

    static Tensor[] quantizeIq2Xs(Tensor weight) {
      GgmlCommon.validateWeight(weight, "IQ2_XS");
      Tensor blocks = weight.reshape(-1, GgmlCommon.GGML_BLOCK_SIZE);
      Tensor amax = blocks.abs().max(1, true).values().clampMin(1e-8);
      Tensor scale = amax.div(3.0);
      Tensor codes = blocks.div(scale).round().clamp(-3, 3);
      return new Tensor[] {codes, scale};
    }

    static Tensor dequantizeIq2Xs(Tensor codes, Tensor scale, Shape shape) {
      return codes.mul(scale).reshape(shape);
    }

    static Tensor iq2XsFakeQuant(Tensor weight) {
      Tensor[] packed = quantizeIq2Xs(weight.detach());
      Tensor reconstructed = dequantizeIq2Xs(packed[0], packed[1], weight.shape());
      return weight.add(reconstructed.sub(weight.detach()));    // straight-through estimator
    }
  }

  /** TensorQuantizer with the IQ2_XS format: no state of its own. */
  static final class TensorQuantizer extends Model {
    boolean enabled = true;

    Tensor forward(Tensor inputs) {
      return enabled ? Iq2Xs.iq2XsFakeQuant(inputs) : inputs;
    }
  }

  /** QuantLinear: the weight goes through the weight quantizer on every forward. */
  static final class QuantLinear extends Model {
    final Linear linear;
    final TensorQuantizer weightQuantizer = new TensorQuantizer();

    QuantLinear(int in, int out) {
      linear = new Linear(in, out);
    }

    Tensor forward(Tensor input) {
      Tensor weight = weightQuantizer.forward(linear.weight());
      return Tensor.linear(input, weight, linear.bias());
    }
  }

  static final class Mlp extends Model {
    final QuantLinear up = new QuantLinear(256, 256);
    final QuantLinear down = new QuantLinear(256, 16);

    Tensor forward(Tensor x) {
      return down.forward(up.forward(x).relu());
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Mlp model = new Mlp();
    model.toDevice(device);
    Adam optimizer = new Adam(model.parameters(), 1e-4);
    MseLoss loss = new MseLoss();
    for (int step = 0; step < 4; step++) {
      Tensor x = Tensor.randn(Shape.of(8, 256), device);
      Tensor y = Tensor.randn(Shape.of(8, 16), device);
      Tensor l = loss.forward(model.forward(x), y);
      optimizer.zeroGrad();
      l.backward();
      optimizer.step();
    }
  }
}
