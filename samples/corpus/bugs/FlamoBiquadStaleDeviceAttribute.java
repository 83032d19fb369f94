package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Model;
import java.util.List;

/**
 * A differentiable audio filter from FLAMO: a {@code Biquad} lowpass whose learnable cut-off and
 * gain pass through a stability map that clamps them to [0, 1] and [-60, 60] dB, inside a
 * {@code Shell} that the user moves to the GPU with {@code .to("cuda")}.
 *
 * <p>Source: https://github.com/gdalsanto/flamo/pull/30
 *
 * <p>Bug: {@code DSP} keeps a plain {@code self.device} from construction (None, the CPU) and
 * {@code Biquad.get_map}'s lambda builds the clamp bounds with {@code device=self.device} at call
 * time; {@code Module.to()} moves the parameters but not that attribute, so the first forward on
 * CUDA clamps a CUDA tensor with CPU bounds. (The FFT-based frequency response, not in this API,
 * is reduced to applying the mapped gain.)
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class FlamoBiquadStaleDeviceAttribute {
  private FlamoBiquadStaleDeviceAttribute() {}

  /** flamo.processor.dsp.Biquad, lowpass. */
  static final class Biquad extends Model {
    final int nSections;
    final Device device;
    final Parameter param;

    Biquad(int nSections) {
      this(nSections, Device.cpu()); // device=None: the default device
    }

    Biquad(int nSections, Device device) {
      this.nSections = nSections;
      this.device = device;
      this.param = new Parameter(Tensor.rand(Shape.of(nSections, 2, 1, 1), device));
    }

    /** get_map's lambda for "lowpass". */
    Tensor map(Tensor x) {
      Tensor stacked = Tensor.stack(
          List.of(x.select(1, 0), x.select(1, 1).abs().log().mul(20 / Math.log(10))), 1);
      Tensor min = Tensor.of(new float[] {0, -60}, Shape.of(2), device).view(1, 2, 1, 1).expandAs(x); // bug: across-methods
      Tensor max = Tensor.of(new float[] {1, 60}, Shape.of(2), device).view(1, 2, 1, 1).expandAs(x); // bug: across-methods
      return stacked.maximum(min).minimum(max); // same bug
    }

    Tensor forward(Tensor x) {
      Tensor mapped = map(param);
      Tensor gainDb = mapped.select(1, 1).sum(0, false).view(1);
      return x.mul(gainDb.div(20).mul(Math.log(10)).exp());
    }
  }

  /** flamo.processor.system.Shell around the core. */
  static final class Shell extends Model {
    final Biquad core;

    Shell(Biquad core) {
      this.core = core;
    }

    Tensor forward(Tensor x) {
      return core.forward(x);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Biquad core = new Biquad(4);
    Shell model = new Shell(core);
    model.toDevice(device);
    Tensor x = Tensor.randn(Shape.of(1, 64), device);
    Tensor y = model.forward(x);
    y.sum().backward();
  }
}
