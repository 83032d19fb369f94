package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;

/**
 * torchtext's {@code T5Model.forward}: it embeds and encodes the encoder tokens, builds the decoder's
 * causal mask with {@code torch.triu(torch.ones((tgt_len, tgt_len), dtype=torch.float64),
 * diagonal=1).to(torch.bool)}, and runs the decoder with that mask over the encoder output.
 *
 * <p>Source: https://github.com/pytorch/text/pull/1977
 *
 * <p>Bug: the causal decoder mask is created without a device, so on a GPU the decoder's attention
 * masks its CUDA scores with a CPU mask; the fix created the mask on the tokens' device.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class TorchtextT5DecoderMaskOnCpu {
  private TorchtextT5DecoderMaskOnCpu() {}

  /** One self-attention head with its output projection, standing in for T5's attention layers. */
  static final class T5Attention extends Model {
    final Linear q;
    final Linear k;
    final Linear v;
    final Linear o;

    T5Attention(int dim) {
      q = new Linear(dim, dim, false, Device.cpu());
      k = new Linear(dim, dim, false, Device.cpu());
      v = new Linear(dim, dim, false, Device.cpu());
      o = new Linear(dim, dim, false, Device.cpu());
    }

    Tensor forward(Tensor query, Tensor keyValue, Tensor mask) {
      Tensor scores = q.forward(query).matmul(k.forward(keyValue).transpose(1, 2));
      if (mask != null) {
        scores = scores.maskedFill(mask, Double.NEGATIVE_INFINITY); // same bug
      }
      return o.forward(scores.softmax(-1).matmul(v.forward(keyValue)));
    }
  }

  static final class T5Model extends Model {
    final int paddingIdx = 0;
    final Embedding tokenEmbeddings;
    final T5Attention encoderSelfAttn;
    final LayerNorm encoderNorm;
    final T5Attention decoderSelfAttn;
    final T5Attention decoderCrossAttn;
    final LayerNorm decoderNorm;
    final Linear lmHead;

    T5Model(int vocabSize, int dim) {
      tokenEmbeddings = new Embedding(vocabSize, dim);
      encoderSelfAttn = new T5Attention(dim);
      encoderNorm = new LayerNorm(dim);
      decoderSelfAttn = new T5Attention(dim);
      decoderCrossAttn = new T5Attention(dim);
      decoderNorm = new LayerNorm(dim);
      lmHead = new Linear(dim, vocabSize, false, Device.cpu());
    }

    Tensor forward(Tensor encoderTokens, Tensor decoderTokens) {
      Tensor encoderEmbeddings = tokenEmbeddings.forward(encoderTokens);
      Tensor encoderOutput = encoderNorm.forward(
          encoderEmbeddings.add(encoderSelfAttn.forward(encoderEmbeddings, encoderEmbeddings, null)));

      long tgtLen = decoderTokens.size(1);
      // torch.triu(torch.ones((tgt_len, tgt_len)), diagonal=1).to(torch.bool)
      Tensor decoderMask = Tensor.arange(tgtLen).unsqueeze(0).gt(Tensor.arange(tgtLen).unsqueeze(1)); // bug: in-method
      Tensor decoderEmbeddings = tokenEmbeddings.forward(decoderTokens);
      Tensor decoderOutput = decoderNorm.forward(
          decoderEmbeddings.add(decoderSelfAttn.forward(decoderEmbeddings, decoderEmbeddings, decoderMask)));
      decoderOutput = decoderOutput.add(decoderCrossAttn.forward(decoderOutput, encoderOutput, null));
      return lmHead.forward(decoderOutput);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    T5Model model = new T5Model(32, 16);
    model.toDevice(device);
    model.eval();
    Tensor encoderTokens = Tensor.randint(1, 32, Shape.of(2, 7), device);
    Tensor decoderTokens = Tensor.randint(1, 32, Shape.of(2, 5), device);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor logits = model.forward(encoderTokens, decoderTokens);
      System.out.println(logits.argmax(-1).to(DType.INT64).cpu());
    }
  }
}
