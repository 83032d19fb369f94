package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.LayerList;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.ArrayList;
import java.util.List;

/**
 * The Hamiltonian Generative Network of CampusAI: a plain {@code HGN} object holding its encoder,
 * transformer, Hamiltonian and decoder networks (loaded with {@code map_location=self.device}) and
 * an {@code Integrator}; {@code get_random_sample} draws a latent, maps it to the phase space (q,
 * p), integrates Hamilton's equations with gradients of the Hamiltonian network and decodes each
 * step into an {@code HgnResult}.
 *
 * <p>Source: https://github.com/CampusAI/Hamiltonian-Generative-Networks/pull/75 (commit 12a0490,
 * hamiltonian_generative_network.py)
 *
 * <p>Bug: {@code latent_representation = torch.randn(latent_shape)} is on the CPU and goes to
 * {@code self.transformer}, whose convolutions are on {@code self.device}. The fix moves it: {@code
 * torch.randn(latent_shape).to(self.device)}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class HgnRandomSampleLatentOnCpu {
  private HgnRandomSampleLatentOnCpu() {}

  /** Only the part of {@code EncoderNet} that sampling reads: its {@code out_mean} convolution. */
  static final class EncoderNet extends Model {
    final Conv2d inConv;
    final Conv2d outMean;

    EncoderNet(int seqLen, int inChannels, int outChannels) {
      inConv = new Conv2d(seqLen * inChannels, 16, 3, 1, 1, true);
      outMean = new Conv2d(16, outChannels, 3, 1, 1, true);
    }
  }

  /** Maps the latent z to two tensors q, p (split along the channels). */
  static final class TransformerNet extends Model {
    final Conv2d inConv;
    final LayerList hiddenLayers;
    final Conv2d outConv;

    TransformerNet(int inChannels, int outChannels) {
      inConv = new Conv2d(inChannels, 16, 3, 2, 1, true);
      hiddenLayers = new LayerList(new Conv2d(16, 16, 3, 2, 1, true));
      outConv = new Conv2d(16, outChannels * 2, 3, 1, 1, true);
    }

    Tensor[] forward(Tensor x) {
      x = inConv.forward(x).relu(); // same bug
      for (var layer : hiddenLayers) {
        x = layer.forward(x).relu();
      }
      x = outConv.forward(x).relu();
      long half = x.size(1) / 2;
      return new Tensor[] {x.narrow(1, 0, half), x.narrow(1, half, half)};
    }
  }

  /** The Hamiltonian: convolutions over (q, p) and a linear layer to one energy per sample. */
  static final class HamiltonianNet extends Model {
    final Conv2d inConv;
    final Conv2d outConv;
    final Linear linear;

    HamiltonianNet(int channels, int size) {
      inConv = new Conv2d(channels * 2, 16, 3, 1, 1, true);
      outConv = new Conv2d(16, 16, 3, 1, 1, true);
      linear = new Linear(16 * size * size, 1);
    }

    Tensor forward(Tensor q, Tensor p) {
      Tensor x = Tensor.cat(List.of(q, p), 1);
      x = outConv.forward(inConv.forward(x).relu()).relu();
      return linear.forward(x.flatten(1));
    }
  }

  /** Decodes q into an image: two nearest-neighbour upsamplings (x2) and convolutions. */
  static final class DecoderNet extends Model {
    final Conv2d conv1;
    final Conv2d conv2;
    final Conv2d outConv;

    DecoderNet(int inChannels, int outChannels) {
      conv1 = new Conv2d(inChannels, 16, 3, 1, 1, true);
      conv2 = new Conv2d(16, 16, 3, 1, 1, true);
      outConv = new Conv2d(16, outChannels, 3, 1, 1, true);
    }

    static Tensor upsample(Tensor x) {
      long n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
      return x.unsqueeze(3).unsqueeze(5).expand(n, c, h, 2, w, 2).reshape(n, c, 2 * h, 2 * w);
    }

    Tensor forward(Tensor q) {
      Tensor x = conv1.forward(upsample(q)).relu();
      x = conv2.forward(upsample(x)).relu();
      return outConv.forward(x).sigmoid();
    }
  }

  /** HGN integrator (Euler): dq/dt = dH/dp, dp/dt = -dH/dq from the Hamiltonian network. */
  static final class Integrator {
    final double deltaT;
    float[] energy;

    Integrator(double deltaT) {
      this.deltaT = deltaT;
    }

    Tensor[] getGrads(Tensor q, Tensor p, HamiltonianNet hnn) {
      Tensor qq = q.detach().requiresGrad(true);
      Tensor pp = p.detach().requiresGrad(true);
      Tensor energy = hnn.forward(qq, pp);
      energy.backward(Tensor.onesLike(energy));
      this.energy = energy.detach().cpu().toFloatArray(); // costs time: HostSyncInLoop
      return new Tensor[] {pp.grad(), qq.grad().neg()};
    }

    Tensor[] step(Tensor q, Tensor p, HamiltonianNet hnn) {
      Tensor[] d = getGrads(q, p, hnn);
      return new Tensor[] {q.add(d[0].mul(deltaT)), p.add(d[1].mul(deltaT))};
    }
  }

  /** The result of a rollout: latent, states, reconstructions and energies. */
  static final class HgnResult {
    Tensor zSample;
    final List<Tensor[]> states = new ArrayList<>();
    final List<Tensor> reconstructions = new ArrayList<>();

    void setZ(Tensor zSample) {
      this.zSample = zSample;
    }

    void appendState(Tensor q, Tensor p) {
      states.add(new Tensor[] {q, p});
    }

    void appendReconstruction(Tensor x) {
      reconstructions.add(x.detach());
    }
  }

  static final class HGN {
    final EncoderNet encoder;
    final TransformerNet transformer;
    final HamiltonianNet hnn;
    final DecoderNet decoder;
    final Integrator integrator;
    final Device device;
    final int channels;

    HGN(EncoderNet encoder, TransformerNet transformer, HamiltonianNet hnn, DecoderNet decoder,
        Integrator integrator, Device device, int channels) {
      this.encoder = encoder;
      this.transformer = transformer;
      this.hnn = hnn;
      this.decoder = decoder;
      this.integrator = integrator;
      this.device = device;
      this.channels = channels;
    }

    /** Sample a rollout from the HGN. */
    HgnResult getRandomSample(int nSteps, int[] imgShape) {
      // Sample from a normal distribution the latent representation of the rollout
      Shape latentShape = Shape.of(1, encoder.outMean.weight().size(0), imgShape[0], imgShape[1]);
      Tensor latentRepresentation = Tensor.randn(latentShape); // bug: across-methods

      HgnResult prediction = new HgnResult();
      prediction.setZ(latentRepresentation);

      // Initial state
      Tensor[] qp = transformer.forward(latentRepresentation); // same bug
      prediction.appendState(qp[0], qp[1]);

      // Initial state reconstruction
      prediction.appendReconstruction(decoder.forward(qp[0]));

      // Estimate predictions
      for (int i = 0; i < nSteps - 1; i++) {
        qp = integrator.step(qp[0], qp[1], hnn);
        prediction.appendState(qp[0], qp[1]);
        prediction.appendReconstruction(decoder.forward(qp[0]));
      }
      return prediction;
    }
  }

  public static void run(Device device) {
    int channels = 3, latent = 8, img = 16;
    EncoderNet encoder = new EncoderNet(5, channels, latent);
    TransformerNet transformer = new TransformerNet(latent, latent);
    HamiltonianNet hnn = new HamiltonianNet(latent, img / 4);
    DecoderNet decoder = new DecoderNet(latent, channels);
    // HGN.load(...) loads each network with map_location=self.device
    encoder.toDevice(device);
    transformer.toDevice(device);
    hnn.toDevice(device);
    decoder.toDevice(device);
    HGN hgn = new HGN(encoder, transformer, hnn, decoder, new Integrator(0.125), device, channels);
    HgnResult rollout = hgn.getRandomSample(4, new int[] {img, img});
    System.out.println("sampled " + rollout.reconstructions.size() + " frames");
  }
}
