package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;

/**
 * PyPOTS's VaDER clustering of incomplete time series: a variational autoencoder whose latent
 * space is a Gaussian mixture (GMMLayer); {@code forward} returns the reconstruction loss plus
 * the latent loss, which evaluates the log density of each sample under each cluster.
 *
 * <p>Source: https://github.com/WenjieDu/PyPOTS/pull/22
 *
 * <p>Bug: {@code _VaDER.forward} computed {@code log_2pi = torch.log(torch.FloatTensor([2 * torch.pi]))},
 * a one-element CPU tensor, and used it in
 * {@code log_pdf_z = -0.5 * (lsc_b + log_2pi + torch.square(z_b - mc_b) / sc_b)} with the model's
 * tensors on the GPU (fix 40477fe: {@code torch.tensor([2 * torch.pi], device=device)}). The
 * peephole-LSTM encoder and decoder are reduced to linear layers here.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class PypotsVaderLog2PiFloatTensor {
  private PypotsVaderLog2PiFloatTensor() {}

  static final class GmmLayer extends Model {
    final Parameter muCUnscaled;
    final Parameter varCUnscaled;
    final Parameter phiCUnscaled;

    GmmLayer(int dHidden, int nClusters) {
      muCUnscaled = new Parameter(Tensor.randn(Shape.of(nClusters, dHidden)));
      varCUnscaled = new Parameter(Tensor.randn(Shape.of(nClusters, dHidden)));
      phiCUnscaled = new Parameter(Tensor.randn(Shape.of(nClusters)));
    }

    Tensor[] forward() {
      Tensor varC = varCUnscaled.exp().log1p();                 // F.softplus
      return new Tensor[] {muCUnscaled, varC, phiCUnscaled.softmax(0)};
    }
  }

  static final class Vader extends Model {
    final int nSteps = 5;
    final int dInput = 3;
    final int nClusters = 2;
    final int dMuStddev = 4;
    final double eps = 1e-9;
    final Linear encoder = new Linear(15, 16);
    final Linear muLayer = new Linear(16, 4);
    final Linear stddevLayer = new Linear(16, 4);
    final Linear decoder = new Linear(4, 15);
    final GmmLayer gmmLayer = new GmmLayer(4, 2);

    Tensor forward(Tensor x, Tensor missingMask) {
      Tensor h = encoder.forward(x.mul(missingMask).reshape(x.size(0), -1)).tanh();
      Tensor muTilde = muLayer.forward(h);
      Tensor stddevTilde = stddevLayer.forward(h);
      Tensor z = muTilde.add(stddevTilde.mul(0.5).exp().mul(Tensor.randnLike(muTilde)));
      Tensor xReconstructed = decoder.forward(z).reshape(x.size(0), nSteps, dInput);
      Tensor[] gmm = gmmLayer.forward();
      Tensor muC = gmm[0], varC = gmm[1], phiC = gmm[2];
      Tensor reconstructionLoss = xReconstructed.sub(x).square().mul(missingMask).sum().div(missingMask.sum());

      // calculate the latent loss
      Tensor stddevC = varC.add(eps).log();
      Tensor log2pi = Tensor.of(new float[] {(float) (2 * Math.PI)}).log(); // bug: in-method
      Tensor logPhiC = phiC.add(eps).log();
      long batchSize = z.size(0);
      Tensor ii = Tensor.arange(nClusters, x.device()).unsqueeze(1).expand(nClusters, batchSize).reshape(-1);
      Tensor jj = Tensor.arange(batchSize, x.device()).unsqueeze(0).expand(nClusters, batchSize).reshape(-1);
      Tensor lscB = stddevC.indexSelect(0, ii);
      Tensor mcB = muC.indexSelect(0, ii);
      Tensor scB = varC.indexSelect(0, ii);
      Tensor zB = z.indexSelect(0, jj);
      Tensor logPdfZ = lscB.add(log2pi).add(zB.sub(mcB).square().div(scB)).mul(-0.5);
      logPdfZ = logPdfZ.reshape(batchSize, nClusters, dMuStddev);
      Tensor logP = logPhiC.add(logPdfZ.sum(2));
      Tensor gammaC = logP.softmax(1);
      Tensor latentLoss = gammaC.mul(logPhiC.sub(gammaC.add(eps).log())).sum(1).neg().mean();
      return reconstructionLoss.add(latentLoss);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Vader model = new Vader();
    model.toDevice(device);
    Adam optimizer = new Adam(model.parameters(), 1e-3);
    for (int step = 0; step < 2; step++) {
      Tensor x = Tensor.randn(Shape.of(6, 5, 3), device);
      Tensor missingMask = Tensor.bernoulli(0.8, Shape.of(6, 5, 3), device).to(DType.FLOAT32);
      optimizer.zeroGrad();
      model.forward(x, missingMask).backward();
      optimizer.step();
    }
  }
}
