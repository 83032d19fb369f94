package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;
import java.util.List;

/**
 * Random-Fourier-features positional encoding of coordinates (the rff package's
 * {@code PositionalEncoding} layer, which calls {@code rff.functional.positional_encoding}) in
 * front of a small MLP.
 *
 * <p>Source: https://github.com/jmclong/random-fourier-features-pytorch/pull/4
 *
 * <p>Bug: {@code positional_encoding} builds {@code j = torch.arange(m)} on the CPU regardless of
 * the input, so {@code coeffs * v[..., np.newaxis]} mixes a CPU and a CUDA tensor.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class RffPositionalEncodingArange {
  private RffPositionalEncodingArange() {}

  /** rff.functional. */
  static final class Functional {
    private Functional() {}

    static Tensor positionalEncoding(Tensor v, double sigma, int m) {
      Tensor j = Tensor.arange(m); // bug: across-methods
      Tensor coeffs = j.div(m).mul(Math.log(sigma)).exp().mul(2 * Math.PI);
      Tensor vp = coeffs.mul(v.unsqueeze(v.dim())); // same bug
      Tensor vpCat = Tensor.cat(List.of(vp.cos(), vp.sin()), vp.dim() - 1);
      return vpCat.flatten(vpCat.dim() - 2, vpCat.dim() - 1);
    }
  }

  /** rff.layers.PositionalEncoding. */
  static final class PositionalEncoding extends Layer {
    final double sigma;
    final int m;

    PositionalEncoding(double sigma, int m) {
      this.sigma = sigma;
      this.m = m;
    }

    @Override
    public Tensor forward(Tensor v) {
      return Functional.positionalEncoding(v, sigma, m);
    }
  }

  /** Encoding then an MLP, as in the package's examples. */
  static final class Net extends Layer {
    final PositionalEncoding encoding = new PositionalEncoding(1.0, 10);
    final Linear fc1 = new Linear(2 * 10 * 2, 32);
    final Linear fc2 = new Linear(32, 3);

    @Override
    public Tensor forward(Tensor coords) {
      return fc2.forward(fc1.forward(encoding.forward(coords)).relu());
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Net net = new Net();
    net.toDevice(device);
    Tensor coords = Tensor.rand(16, 2, device);
    Tensor out = net.forward(coords);
    out.sum().item();
  }
}
