package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.OnDevice;
import dev.ondevice.nn.Model;

/**
 * Cornucopia's {@code ContrastLookupTransform}, a random contrast augmentation for images on the
 * GPU: {@code make_final} splits the intensity range of the image into {@code nk} bins and draws a
 * new random mean for each, and the final transform shifts every voxel of a bin by its new mean.
 *
 * <p>Source: https://github.com/balbasty/cornucopia/pull/22
 *
 * <p>Bug: {@code make_final} computes {@code new_mu = torch.rand(self.nk) * (vmax - vmin) + vmin}
 * with {@code vmin, vmax = x.min(), x.max()} on the image's CUDA device and {@code torch.rand} on
 * the CPU, so the product mixes devices (issue 21). Its {@code torch.linspace(vmin, vmax, nk + 1)}
 * also reads the two CUDA bounds on the host (written here as {@code item()} and an arange). The
 * final transform's {@code edges} and {@code mu}, plain attributes there, are {@code @OnDevice("cpu")}
 * fields here, as the processor requires; the final transform is never moved either way.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class CornucopiaContrastLookupRandOnCpu {
  private CornucopiaContrastLookupRandOnCpu() {}

  /** ContrastLookupTransform.LookupFinalTransform; never moved, like its plain attributes there. */
  static final class LookupFinalTransform extends Model {
    @OnDevice("cpu") Tensor edges;
    @OnDevice("cpu") Tensor mu;

    LookupFinalTransform(Tensor edges, Tensor mu) {
      this.edges = edges;
      this.mu = mu;
    }

    Tensor xform(Tensor x) {
      Tensor e = edges.to(x.device());
      Tensor m = mu.to(x.device());
      long nk = m.size(0);
      Tensor mu0 = e.narrow(0, 0, nk).add(e.narrow(0, 1, nk)).div(2);
      Tensor newX = x.clone();
      for (long k = 0; k < nk; k++) {
        Tensor mask = e.select(0, k).le(x).logicalAnd(x.lt(e.select(0, k + 1)));
        newX = newX.add(mask.to(DType.FLOAT32).mul(m.select(0, k).sub(mu0.select(0, k))));
      }
      return newX;
    }
  }

  /** cornucopia/contrast.py ContrastLookupTransform (a NonFinalTransform, an nn.Module). */
  static final class ContrastLookupTransform extends Model {
    final int nk;

    ContrastLookupTransform(int nk) {
      this.nk = nk;
    }

    LookupFinalTransform makeFinal(Tensor x) {
      Tensor vmin = x.min();
      Tensor vmax = x.max();
      double[] bounds = {vmin.item(), vmax.item()}; // costs time: HostSyncInLoop
      Tensor edges = Tensor.arange(0, nk + 1).to(DType.FLOAT32).mul((bounds[1] - bounds[0]) / nk).add(bounds[0]);
      Tensor newMu = Tensor.rand(Shape.of(nk)).mul(vmax.sub(vmin)).add(vmin); // bug: in-method
      return new LookupFinalTransform(edges, newMu);
    }

    Tensor forward(Tensor x) {
      return makeFinal(x).xform(x);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    ContrastLookupTransform augment = new ContrastLookupTransform(4);
    for (int i = 0; i < 2; i++) {
      Tensor image = Tensor.rand(Shape.of(1, 8, 8), device);
      augment.forward(image).sum().item();
    }
  }
}
