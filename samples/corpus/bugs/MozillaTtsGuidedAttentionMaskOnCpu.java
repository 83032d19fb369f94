package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;

/**
 * Mozilla TTS's {@code GuidedAttentionLoss}: {@code forward(att_ws, ilens, olens)} builds one
 * guided-attention mask per utterance with {@code _make_ga_masks}, which fills a batch of masks from
 * the static helper {@code _make_ga_mask(ilen, olen, sigma)}: {@code grid_x, grid_y =
 * torch.meshgrid(torch.arange(olen), torch.arange(ilen))} and {@code 1.0 - torch.exp(-(grid_y / ilen
 * - grid_x / olen) ** 2 / (2 * (sigma ** 2)))}; the masks are moved to the attention weights' device
 * and multiplied with them.
 *
 * <p>Source: https://github.com/mozilla/TTS/issues/473
 *
 * <p>Bug: the grids are made with {@code torch.arange} without a device, while {@code ilen} and
 * {@code olen} come from the lengths tensors on CUDA, so {@code grid_y / ilen} mixes a CPU grid with a
 * CUDA length; the thread's fix creates the grids with {@code device=ilen.device}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class MozillaTtsGuidedAttentionMaskOnCpu {
  private MozillaTtsGuidedAttentionMaskOnCpu() {}

  static final class GuidedAttentionLoss {
    final double sigma;

    GuidedAttentionLoss(double sigma) {
      this.sigma = sigma;
    }

    Tensor makeGaMasks(Tensor ilens, Tensor olens) {
      int b = (int) ilens.size(0);
      long maxIlen = ilens.max().itemAsLong(); // costs time: HostSyncInLoop
      long maxOlen = olens.max().itemAsLong(); // costs time: HostSyncInLoop
      Tensor gaMasks = Tensor.zeros(Shape.of(b, maxOlen, maxIlen));
      for (int idx = 0; idx < b; idx++) {
        Tensor ilen = ilens.select(0, idx);
        Tensor olen = olens.select(0, idx);
        Tensor mask = makeGaMask(ilen, olen, sigma);
        gaMasks.select(0, idx).narrow(0, 0, mask.size(0)).narrow(1, 0, mask.size(1)).copyFrom(mask);
      }
      return gaMasks;
    }

    Tensor forward(Tensor attWs, Tensor ilens, Tensor olens) {
      Tensor gaMasks = makeGaMasks(ilens, olens).to(attWs.device());
      Tensor losses = gaMasks.mul(attWs);
      return losses.mean();
    }

    static Tensor makeGaMask(Tensor ilen, Tensor olen, double sigma) {
      long olenValue = olen.itemAsLong(); // costs time: HostSyncInLoop
      long ilenValue = ilen.itemAsLong(); // costs time: HostSyncInLoop
      // torch.meshgrid(torch.arange(olen), torch.arange(ilen))
      Tensor gridX = Tensor.arange(olenValue).unsqueeze(1).expand(olenValue, ilenValue).to(DType.FLOAT32); // bug: across-methods
      Tensor gridY = Tensor.arange(ilenValue).unsqueeze(0).expand(olenValue, ilenValue).to(DType.FLOAT32); // same bug
      Tensor diff = gridY.div(ilen).sub(gridX.div(olen)); // same bug
      return diff.square().neg().div(2 * sigma * sigma).exp().rsub(1.0);
    }
  }

  /** A tiny attention model: decoder queries against encoder keys. */
  static final class Attention extends Model {
    final Linear query = new Linear(8, 8);
    final Linear key = new Linear(8, 8);

    Tensor forward(Tensor decoderStates, Tensor encoderStates) {
      return query.forward(decoderStates).matmul(key.forward(encoderStates).transpose(1, 2)).softmax(-1);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Attention model = new Attention();
    model.toDevice(device);
    Adam optimizer = new Adam(model.parameters(), 1e-3);
    GuidedAttentionLoss criterion = new GuidedAttentionLoss(0.4);
    Tensor text = Tensor.randn(Shape.of(2, 6, 8), device);
    Tensor mel = Tensor.randn(Shape.of(2, 10, 8), device);
    Tensor textLengths = Tensor.of(new long[] {6, 4}, Shape.of(2), device);
    Tensor melLengths = Tensor.of(new long[] {10, 7}, Shape.of(2), device);
    Tensor alignments = model.forward(mel, text);
    Tensor loss = criterion.forward(alignments, textLengths, melLengths);
    optimizer.zeroGrad();
    loss.backward();
    optimizer.step();
    System.out.println("ga loss " + loss.item());
  }
}
