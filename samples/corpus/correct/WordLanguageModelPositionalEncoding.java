package corpus.correct;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.annotations.OnDevice;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.NllLoss;
import dev.ondevice.optim.Sgd;

/**
 * The word-language-model TransformerModel: a sinusoidal PositionalEncoding whose table is a
 * registered {@code pe} buffer, and a square subsequent mask built on the CPU and moved to
 * {@code src.device} when the sequence length changes.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/001d493285083b54cacbc1334cb26338bdff2455/word_language_model/model.py
 *
 * <p>Ported: PositionalEncoding as written (pe built on the CPU in the constructor, registered,
 * sliced to the sequence length in forward), TransformerModel.forward with its cached
 * {@code src_mask} and {@code _generate_square_subsequent_mask(len(src)).to(device)}, and a few
 * training steps on batchified random tokens. Left out: nn.TransformerEncoder, replaced by one
 * single-head self-attention block (the API has no transformer layers); the strided
 * {@code pe[:, 0::2] = sin} assignments are a stack of sin and cos; {@code src_mask}, a plain
 * attribute in the original, is {@code @OnDevice} here (the processor rejects an unregistered tensor
 * field).
 *
 * <p>Outcome: completes
 */
public final class WordLanguageModelPositionalEncoding {
  private WordLanguageModelPositionalEncoding() {}

  static final class PositionalEncoding extends Model {
    final Dropout dropout;
    @Buffer Tensor pe;

    PositionalEncoding(int dModel, double dropout, int maxLen) {
      this.dropout = new Dropout(dropout);
      Tensor position = Tensor.arange(0, maxLen, 1, DType.FLOAT32, Device.cpu()).unsqueeze(1);
      Tensor divTerm = Tensor.arange(0, dModel, 2, DType.FLOAT32, Device.cpu()).mul(-Math.log(10000.0) / dModel).exp();
      Tensor angles = position.mul(divTerm);
      Tensor table = Tensor.stack(java.util.List.of(angles.sin(), angles.cos()), 2).view(maxLen, dModel);
      pe = table.unsqueeze(0).transpose(0, 1).contiguous();
    }

    Tensor forward(Tensor x) {
      x = x.add(pe.slice(0, 0, x.size(0)));
      return dropout.forward(x);
    }
  }

  /** Stands for nn.TransformerEncoder: one self-attention block taking an additive mask. */
  static final class EncoderBlock extends Model {
    final Linear q, k, v, ff;
    final LayerNorm norm1, norm2;

    EncoderBlock(int d) {
      q = new Linear(d, d); k = new Linear(d, d); v = new Linear(d, d); ff = new Linear(d, d);
      norm1 = new LayerNorm(d); norm2 = new LayerNorm(d);
    }

    Tensor forward(Tensor src, Tensor mask) {
      Tensor x = src.transpose(0, 1);
      Tensor scores = q.forward(x).matmul(k.forward(x).transpose(1, 2)).div(Math.sqrt(x.size(2)));
      if (mask != null) {
        scores = scores.add(mask);
      }
      x = norm1.forward(x.add(scores.softmax(-1).matmul(v.forward(x))));
      x = norm2.forward(x.add(ff.forward(x).relu()));
      return x.transpose(0, 1);
    }
  }

  static final class TransformerModel extends Model {
    @OnDevice Tensor srcMask;
    final PositionalEncoding posEncoder;
    final Embedding inputEmb;
    final EncoderBlock encoder;
    final Linear decoder;
    final int ninp;

    TransformerModel(int ntoken, int ninp, double dropout) {
      posEncoder = new PositionalEncoding(ninp, dropout, 5000);
      inputEmb = new Embedding(ntoken, ninp);
      encoder = new EncoderBlock(ninp);
      decoder = new Linear(ninp, ntoken);
      this.ninp = ninp;
    }

    Tensor generateSquareSubsequentMask(long sz) {
      Tensor mask = Tensor.arange(sz).unsqueeze(1).ge(Tensor.arange(sz).unsqueeze(0));
      return Tensor.zeros(Shape.of(sz, sz)).maskedFill(mask.logicalNot(), Double.NEGATIVE_INFINITY);
    }

    Tensor forward(Tensor src, boolean hasMask) {
      if (hasMask) {
        Device device = src.device();
        if (srcMask == null || srcMask.size(0) != src.size(0)) {
          Tensor mask = generateSquareSubsequentMask(src.size(0)).to(device);  // costs time: CreateThenMove
          srcMask = mask;
        }
      } else {
        srcMask = null;
      }
      Tensor x = inputEmb.forward(src).mul(Math.sqrt(ninp));
      x = posEncoder.forward(x);
      Tensor output = encoder.forward(x, srcMask);
      output = decoder.forward(output);
      return output.logSoftmax(-1);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    int ntokens = 50, bptt = 6, batchSize = 4;
    Tensor corpus = Tensor.randint(0, ntokens, Shape.of(4 * bptt * batchSize + 1));
    long nbatch = corpus.size(0) / batchSize;
    Tensor trainData = corpus.narrow(0, 0, nbatch * batchSize).view(batchSize, -1).t().contiguous().to(device);
    TransformerModel model = new TransformerModel(ntokens, 16, 0.2);
    model.toDevice(device);
    NllLoss criterion = new NllLoss();
    Sgd optimizer = new Sgd(model.parameters(), 0.1);
    model.train();
    for (long i = 0; i < trainData.size(0) - 1; i += bptt) {
      long seqLen = Math.min(bptt, trainData.size(0) - 1 - i);
      Tensor data = trainData.slice(0, i, i + seqLen);
      Tensor targets = trainData.slice(0, i + 1, i + 1 + seqLen).reshape(-1);
      optimizer.zeroGrad();
      Tensor output = model.forward(data, true);
      Tensor loss = criterion.forward(output.view(-1, ntokens), targets);
      loss.backward();
      optimizer.step();
    }
  }
}
