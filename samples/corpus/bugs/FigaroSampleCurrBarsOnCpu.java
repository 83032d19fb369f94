package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.List;
import java.util.Map;

/**
 * FIGARO's Seq2SeqModule.sample: autoregressive sampling of music tokens in a sliding context
 * window; with the 'description' flavor it scrolls the description whenever the window reaches a
 * new bar. The batch (a dict of CPU tensors) is sliced and moved to the model's device every step.
 *
 * <p>Source: https://github.com/dvruette/figaro/pull/11
 *
 * <p>Bug: {@code curr_bars = torch.zeros(batch_size).fill_(-1)} was created on the CPU, and the
 * first step compared it with {@code next_bars = bar_ids_[:, 0]} on the model's device in
 * {@code (next_bars == curr_bars).all()}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class FigaroSampleCurrBarsOnCpu {
  private FigaroSampleCurrBarsOnCpu() {}

  static final class Seq2SeqModule extends Model {
    final int contextSize = 6;
    final Embedding inEmbedding = new Embedding(32, 12);
    final Embedding descEmbedding = new Embedding(16, 12);
    final Linear lmHead = new Linear(12, 32);

    Tensor decode(Tensor x, Tensor desc) {
      Tensor h = inEmbedding.forward(x).add(descEmbedding.forward(desc).mean(1, true));
      return lmHead.forward(h.tanh());
    }

    Tensor sample(Map<String, Tensor> batch, int maxLength) {
      long batchSize = batch.get("input_ids").size(0);
      long currLen = batch.get("input_ids").size(1);
      Tensor x = batch.get("input_ids");
      Tensor barIds = batch.get("bar_ids");
      Tensor desc = batch.get("description");
      Tensor descBarIds = batch.get("desc_bar_ids");
      Tensor z = null;

      Tensor currBars = Tensor.zeros(batchSize).fill(-1); // bug: in-method
      // Sample using decoder until max_length is reached
      for (long i = currLen - 1; i < maxLength; i++) {
        long start = Math.max(0, x.size(1) - contextSize);
        Tensor x_ = x.narrow(1, start, x.size(1) - start).to(device());
        Tensor barIds_ = barIds.narrow(1, start, barIds.size(1) - start).to(device());

        // Description scrolling
        Tensor nextBars = barIds_.select(1, 0);
        boolean barsChanged = nextBars.eq(currBars).to(DType.INT64).min().itemAsLong() == 0;
        currBars = nextBars;
        if (barsChanged || z == null) {
          long idx = Math.min(descBarIds.size(1) - contextSize, Math.max(0, nextBars.select(0, 0).itemAsLong()));
          z = desc.narrow(1, idx, contextSize).to(device());
        }

        Tensor logits = decode(x_, z).select(1, -1);
        Tensor nextToken = logits.argmax(-1, true).cpu();
        Tensor nextBar = barIds.narrow(1, barIds.size(1) - 1, 1).add(nextToken.eq(1).to(DType.INT64));
        x = Tensor.cat(List.of(x, nextToken), 1);
        barIds = Tensor.cat(List.of(barIds, nextBar), 1);
      }
      return x;
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Seq2SeqModule model = new Seq2SeqModule();
    model.toDevice(device);
    model.eval();
    Map<String, Tensor> batch = Map.of(
        "input_ids", Tensor.randint(0, 32, Shape.of(2, 4)),
        "bar_ids", Tensor.zeros(Shape.of(2, 4), DType.INT64, Device.cpu()),
        "description", Tensor.randint(0, 16, Shape.of(2, 12)),
        "desc_bar_ids", Tensor.arange(12).expand(2, 12).contiguous());
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      model.sample(batch, 10);
    }
  }
}
