package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.List;

/**
 * XLNetModel.forward: every call builds the sinusoidal relative position embeddings with {@code
 * relative_positional_encoding(qlen, klen, bsz)} ({@code torch.arange} frequencies and positions,
 * then {@code positional_embedding}) and moves the result to the hidden states' device.
 *
 * <p>Source: https://github.com/huggingface/transformers/pull/44782 (issue #44737)
 *
 * <p>Bug: the four {@code torch.arange} calls had no {@code device}, so the whole encoding was
 * computed on the CPU on every forward pass and then copied with {@code pos_emb.to(output_h.device)};
 * the fix passes {@code device=output_h.device} down to the {@code arange} calls and drops the copy.
 *
 * <p>Outcome: completes (costs time)
 */
public final class XlnetRelativePositionalEncodingOnCpu {
  private XlnetRelativePositionalEncodingOnCpu() {}

  static final class XlnetModel extends Model {
    final int dModel;
    final boolean biData = false;
    final Embedding wordEmbedding = new Embedding(50, 16);
    final Linear r = new Linear(16, 16);
    final Linear layer = new Linear(16, 16);
    final LayerNorm layerNorm = new LayerNorm(16);

    XlnetModel(int dModel) {
      this.dModel = dModel;
    }

    /** positional_embedding: sin and cos of pos_seq x inv_freq (cos written as a shifted sin). */
    static Tensor positionalEmbedding(Tensor posSeq, Tensor invFreq) {
      Tensor sinusoidInp = posSeq.unsqueeze(1).mul(invFreq.unsqueeze(0));
      return Tensor.cat(List.of(sinusoidInp.sin(), sinusoidInp.add(Math.PI / 2).sin()), -1);
    }

    Tensor relativePositionalEncoding(long qlen, long klen) {
      Tensor freqSeq = Tensor.arange(dModel / 2).mul(2.0); // same bug
      Tensor invFreq = freqSeq.div(dModel).mul(Math.log(10000)).exp().rdiv(1.0);
      long beg = klen;
      Tensor fwdPosSeq = Tensor.arange(klen + qlen).rsub(beg).to(DType.FLOAT32); // same bug
      return positionalEmbedding(fwdPosSeq, invFreq);
    }

    Tensor forward(Tensor inputIds) {
      long qlen = inputIds.size(0);
      long klen = qlen;
      Tensor wordEmbK = wordEmbedding.forward(inputIds);
      Tensor outputH = wordEmbK;
      Tensor posEmb = relativePositionalEncoding(qlen, klen);
      posEmb = posEmb.to(outputH.device()); // bug: per-step
      Tensor kHeadR = r.forward(posEmb);
      Tensor scores = outputH.matmul(kHeadR.t()).slice(1, 0, klen).softmax(1);
      outputH = layerNorm.forward(layer.forward(scores.matmul(outputH)).add(outputH));
      return outputH;
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    XlnetModel model = new XlnetModel(16);
    model.toDevice(device);
    model.eval();
    for (int step = 0; step < 3; step++) {
      Tensor inputIds = Tensor.randint(0, 50, Shape.of(8), device);
      Tensor out = model.forward(inputIds);
      System.out.println(out.shape());
    }
  }
}
