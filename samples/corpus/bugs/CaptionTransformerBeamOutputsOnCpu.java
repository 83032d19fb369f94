package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;

/**
 * kaylode/caption-transformer's beam search: {@code init_vars} encodes the image features and
 * builds the beam of token ids {@code ys}; for each image, {@code k_best_outputs} keeps the k best
 * extensions and reorders the beam's rows.
 *
 * <p>Source: https://github.com/kaylode/caption-transformer/issues/3
 *
 * <p>Bug: {@code ys = torch.zeros(batch_size, k, max_len).long()} stays on the CPU (only slices of
 * it are sent to the decoder with {@code .to(device)}), while {@code row = k_ix // k} comes from
 * {@code topk} of the decoder's output on the GPU; {@code outputs[row, :i]} in
 * {@code k_best_outputs} indexed a CPU tensor with GPU indices.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class CaptionTransformerBeamOutputsOnCpu {
  private CaptionTransformerBeamOutputsOnCpu() {}

  static final class CaptionModel extends Model {
    final Linear encoder = new Linear(10, 16);
    final Embedding embed = new Embedding(20, 16);
    final Linear out = new Linear(16, 20);

    Tensor decoder(Tensor ys, Tensor memory) {
      return embed.forward(ys).add(memory.mean(1, true)).tanh();
    }
  }

  /** torch.topk along the last dimension: values and indices, on the input's device. */
  static Tensor[] topk(Tensor x, int k) {
    Tensor rest = x;
    Tensor values = null;
    Tensor indices = null;
    for (int j = 0; j < k; j++) {
      Tensor ix = rest.argmax(-1, true);
      Tensor v = rest.gather(-1, ix);
      values = values == null ? v : Tensor.cat(java.util.List.of(values, v), -1);
      indices = indices == null ? ix : Tensor.cat(java.util.List.of(indices, ix), -1);
      rest = rest.add(Tensor.oneHot(ix.squeeze(-1), (int) x.size(-1)).to(DType.FLOAT32).mul(-1e9));
    }
    return new Tensor[] {values, indices};
  }

  /** Returns ys (batch, k, max_len), memorys and log_scores. */
  static Tensor[] initVars(CaptionModel model, Tensor src, int maxLen, int k, Device device) {
    long batchSize = src.size(0);
    Tensor memory = model.encoder.forward(src);                       // (batch, regions, 16)
    Tensor ys = Tensor.full(Shape.of(batchSize, 1), 1.0, DType.INT64, Device.cpu());
    Tensor prob = model.out.forward(model.decoder(ys.to(device), memory).select(1, -1));
    Tensor[] top = topk(prob.softmax(-1), k);
    Tensor logScores = top[0].log();
    Tensor beam = Tensor.zeros(Shape.of(batchSize, k, maxLen), DType.INT64, Device.cpu());
    beam.select(2, 0).fill(1);
    beam.select(2, 1).copyFrom(top[1]);
    Tensor memorys = memory.unsqueeze(1).expand(batchSize, k, memory.size(1), 16).contiguous();
    return new Tensor[] {beam, memorys, logScores};
  }

  static Tensor[] kBestOutputs(Tensor outputs, Tensor out, Tensor logScores, int i, int k) {
    Tensor[] top = topk(out, k);
    Tensor logProbs = top[0].log().add(logScores.transpose(0, 1));
    Tensor[] best = topk(logProbs.reshape(-1), k);
    Tensor row = best[1].div(k).floor().to(DType.INT64);
    Tensor col = best[1].sub(row.mul(k));
    Tensor previous = outputs.indexSelect(0, row).narrow(1, 0, i);   // bug: across-methods
    outputs.narrow(1, 0, i).copyFrom(previous);
    outputs.select(1, i).copyFrom(top[1].indexSelect(0, row).gather(1, col.unsqueeze(1)).squeeze(1));
    return new Tensor[] {outputs, best[0].unsqueeze(0)};
  }

  static void beamSearch(CaptionModel model, Tensor src, int maxLen, int k) {
    Device device = model.device();
    Tensor[] vars = initVars(model, src, maxLen, k, device);
    for (int batchId = 0; batchId < src.size(0); batchId++) {
      Tensor ysK = vars[0].select(0, batchId);
      Tensor memorysK = vars[1].select(0, batchId);
      Tensor logScoresK = vars[2].select(0, batchId).unsqueeze(0);
      for (int i = 2; i < maxLen; i++) {
        Tensor out = model.out.forward(model.decoder(ysK.narrow(1, 0, i).to(device), memorysK.to(device)).select(1, -1));
        Tensor[] next = kBestOutputs(ysK, out.softmax(-1), logScoresK, i, k);
        ysK = next[0];
        logScoresK = next[1].div(Math.pow((5.0 + (i + 1)) / 6.0, 0.6));     // length penalty
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    CaptionModel model = new CaptionModel();
    model.toDevice(device);
    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      beamSearch(model, Tensor.randn(2, 5, 10, device), 6, 3);
    }
  }
}
