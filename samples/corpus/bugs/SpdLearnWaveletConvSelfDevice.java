package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;

/**
 * spd_learn: a {@code WaveletConv} layer filters multichannel EEG with learnable wavelets and feeds
 * the band-passed signals to the covariance/SPD layers of the network. The layer takes a {@code
 * device} argument (default {@code "cpu"}) and keeps it as {@code self.device}.
 *
 * <p>Source: https://github.com/spdlearn/spd_learn/pull/16
 *
 * <p>Bug: "{@code WaveletConv.forward} returns output hardcoded to {@code self.device} (which defaults
 * to CPU), ignoring the input tensor's actual device": with the network moved to the GPU, the next
 * layer gets a CPU tensor; fixed by using {@code X.device}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class SpdLearnWaveletConvSelfDevice {
  private SpdLearnWaveletConvSelfDevice() {}

  /** Gabor-like wavelets at learnable center frequencies; the convolution is a projection here. */
  static final class WaveletConv extends Model {
    final Parameter foi;
    final int kernelWidth;
    final Device device;

    WaveletConv(int nFreqs, int kernelWidth, Device device) {
      this.foi = new Parameter(Tensor.rand(Shape.of(nFreqs)).mul(0.2).add(0.05));
      this.kernelWidth = kernelWidth;
      this.device = device;
    }

    WaveletConv(int nFreqs, int kernelWidth) {
      this(nFreqs, kernelWidth, Device.cpu());
    }

    Tensor forward(Tensor x) {
      // x: [batch, chans, time]; kernels: [freqs, time]
      Tensor t = Tensor.arange(x.size(2), x.device()).to(x.dtype()).sub(x.size(2) / 2.0);
      Tensor envelope = t.square().mul(-1.0 / (2.0 * kernelWidth * kernelWidth)).exp();
      Tensor kernels = foi.unsqueeze(1).mul(t.unsqueeze(0)).mul(2 * Math.PI).sin().mul(envelope.unsqueeze(0));
      List<Tensor> bands = new ArrayList<>();
      for (int f = 0; f < foi.size(0); f++) {
        bands.add(x.mul(kernels.select(0, f)));
      }
      Tensor out = Tensor.stack(bands, 1);   // [batch, freqs, chans, time]
      return out.to(device); // bug: across-methods
    }
  }

  /** Covariance per band, then a log-diagonal feature vector and a linear classifier. */
  static final class WaveletSpdNet extends Model {
    final WaveletConv wavelet = new WaveletConv(3, 8);
    final Linear classifier = new Linear(3 * 4, 2);

    Tensor forward(Tensor x) {
      Tensor bands = wavelet.forward(x);
      Tensor centered = bands.sub(bands.mean(3, true));
      Tensor cov = centered.matmul(centered.transpose(2, 3)).div(bands.size(3) - 1);
      Tensor eye = Tensor.eye(cov.size(2), x.device());
      Tensor diag = cov.mul(eye).sum(3).clampMin(1e-6).log(); // same bug
      return classifier.forward(diag.flatten(1));
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    WaveletSpdNet model = new WaveletSpdNet();
    model.toDevice(device);
    Adam optimizer = new Adam(model.parameters(), 1e-3);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    for (int step = 0; step < 2; step++) {
      Tensor x = Tensor.randn(Shape.of(6, 4, 64), device);
      Tensor y = Tensor.randint(0, 2, Shape.of(6), device);
      Tensor loss = criterion.forward(model.forward(x), y);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
  }
}
