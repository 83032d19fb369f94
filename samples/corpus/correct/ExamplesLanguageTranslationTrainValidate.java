package corpus.correct;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.List;

/**
 * The PyTorch language-translation example: a {@code Translator} (source and target embeddings, a
 * sinusoidal {@code PositionalEncoding} registered as a buffer, an {@code nn.Transformer} and an
 * output projection), trained by {@code train(...)} and checked by {@code validate(...)}, which
 * both move each batch to {@code DEVICE} and build the masks with the data module's helpers {@code
 * create_mask(src, tgt, pad_idx, device)} and {@code generate_square_subsequent_mask(size,
 * device)}, which create them on the given device.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/77f55b912142e11fcfdf5b530231fb9c52f181e8/language_translation/main.py
 * (with src/model.py and src/data.py)
 *
 * <p>Ported: Translator, PositionalEncoding, create_mask, generate_square_subsequent_mask, train
 * and validate as written (both sum {@code loss.item()} per batch, as the original does), the epoch
 * loop of main; left out argparse, logging, tqdm, torchtext's Multi30k, tokenizers and vocabularies
 * (random token batches here, sequence-first as the original), the greedy-decoding inference and
 * model saving; {@code CrossEntropyLoss(ignore_index=pad)} has no {@code ignore_index} here (padding
 * positions count in the loss). {@code nn.Transformer} is written out as one single-head encoder layer and one
 * decoder layer (post-norm, with the attention and key-padding masks); xavier initialisation is
 * left out.
 *
 * <p>Outcome: completes
 */
public final class ExamplesLanguageTranslationTrainValidate {
  private ExamplesLanguageTranslationTrainValidate() {}

  static final int PAD_IDX = 1;
  static final int BOS_IDX = 2;

  // src/data.py

  static Tensor generateSquareSubsequentMask(long size, Device device) {
    Tensor rows = Tensor.arange(size, device).unsqueeze(1);
    Tensor cols = Tensor.arange(size, device).unsqueeze(0);
    Tensor mask = cols.ge(rows).transpose(0, 1); // (torch.triu(torch.ones((size, size))) == 1).transpose(0, 1)
    return Tensor.zeros(Shape.of(size, size), device).maskedFill(mask.logicalNot(), Double.NEGATIVE_INFINITY);
  }

  /** Returns src_mask, tgt_mask, src_padding_mask, tgt_padding_mask. */
  static Tensor[] createMask(Tensor src, Tensor tgt, int padIdx, Device device) {
    long srcSeqLen = src.size(0);
    long tgtSeqLen = tgt.size(0);
    Tensor tgtMask = generateSquareSubsequentMask(tgtSeqLen, device);
    Tensor srcMask = Tensor.zeros(Shape.of(srcSeqLen, srcSeqLen), device).to(DType.BOOL);
    Tensor srcPaddingMask = src.eq(padIdx).transpose(0, 1);
    Tensor tgtPaddingMask = tgt.eq(padIdx).transpose(0, 1);
    return new Tensor[] {srcMask, tgtMask, srcPaddingMask, tgtPaddingMask};
  }

  // src/model.py

  static final class PositionalEncoding extends Model {
    final Dropout dropout;
    @Buffer Tensor posEmbedding;

    PositionalEncoding(int embSize, double dropout, int maxlen) {
      double[] table = new double[maxlen * embSize];
      for (int pos = 0; pos < maxlen; pos++) {
        for (int i = 0; i < embSize; i += 2) {
          double den = Math.exp(-i * Math.log(10000) / embSize);
          table[pos * embSize + i] = Math.sin(pos * den);
          table[pos * embSize + i + 1] = Math.cos(pos * den);
        }
      }
      this.dropout = new Dropout(dropout);
      this.posEmbedding = Tensor.of(table, maxlen, embSize).unsqueeze(-2);
    }

    Tensor forward(Tensor tokenEmbedding) {
      return dropout.forward(tokenEmbedding.add(posEmbedding.slice(0, 0, tokenEmbedding.size(0))));
    }
  }

  /** Single-head attention over sequence-first inputs [L, N, E]. */
  static final class Attention extends Model {
    final Linear q;
    final Linear k;
    final Linear v;
    final Linear out;

    Attention(int e) {
      this.q = new Linear(e, e);
      this.k = new Linear(e, e);
      this.v = new Linear(e, e);
      this.out = new Linear(e, e);
    }

    Tensor forward(Tensor query, Tensor key, Tensor attnMask, Tensor keyPaddingMask) {
      Tensor qh = q.forward(query).transpose(0, 1);
      Tensor kh = k.forward(key).transpose(0, 1);
      Tensor vh = v.forward(key).transpose(0, 1);
      Tensor scores = qh.matmul(kh.transpose(1, 2)).div(Math.sqrt(qh.size(2)));
      if (attnMask != null) {
        scores = attnMask.dtype() == DType.BOOL ? scores.maskedFill(attnMask, Double.NEGATIVE_INFINITY)
            : scores.add(attnMask);
      }
      if (keyPaddingMask != null) {
        scores = scores.maskedFill(keyPaddingMask.unsqueeze(1), Double.NEGATIVE_INFINITY);
      }
      return out.forward(scores.softmax(-1).matmul(vh).transpose(0, 1));
    }
  }

  static final class EncoderLayer extends Model {
    final Attention selfAttn;
    final Linear linear1;
    final Linear linear2;
    final LayerNorm norm1;
    final LayerNorm norm2;
    final Dropout dropout;

    EncoderLayer(int e, int ff, double p) {
      this.selfAttn = new Attention(e);
      this.linear1 = new Linear(e, ff);
      this.linear2 = new Linear(ff, e);
      this.norm1 = new LayerNorm(e);
      this.norm2 = new LayerNorm(e);
      this.dropout = new Dropout(p);
    }

    Tensor forward(Tensor src, Tensor srcMask, Tensor srcKeyPaddingMask) {
      Tensor x = norm1.forward(src.add(dropout.forward(selfAttn.forward(src, src, srcMask, srcKeyPaddingMask))));
      return norm2.forward(x.add(dropout.forward(linear2.forward(dropout.forward(linear1.forward(x).relu())))));
    }
  }

  static final class DecoderLayer extends Model {
    final Attention selfAttn;
    final Attention crossAttn;
    final Linear linear1;
    final Linear linear2;
    final LayerNorm norm1;
    final LayerNorm norm2;
    final LayerNorm norm3;
    final Dropout dropout;

    DecoderLayer(int e, int ff, double p) {
      this.selfAttn = new Attention(e);
      this.crossAttn = new Attention(e);
      this.linear1 = new Linear(e, ff);
      this.linear2 = new Linear(ff, e);
      this.norm1 = new LayerNorm(e);
      this.norm2 = new LayerNorm(e);
      this.norm3 = new LayerNorm(e);
      this.dropout = new Dropout(p);
    }

    Tensor forward(Tensor tgt, Tensor memory, Tensor tgtMask, Tensor tgtKeyPaddingMask,
        Tensor memoryKeyPaddingMask) {
      Tensor x = norm1.forward(tgt.add(dropout.forward(selfAttn.forward(tgt, tgt, tgtMask, tgtKeyPaddingMask))));
      x = norm2.forward(x.add(dropout.forward(crossAttn.forward(x, memory, null, memoryKeyPaddingMask))));
      return norm3.forward(x.add(dropout.forward(linear2.forward(dropout.forward(linear1.forward(x).relu())))));
    }
  }

  static final class Translator extends Model {
    final Embedding srcEmbedding;
    final Embedding tgtEmbedding;
    final PositionalEncoding posEnc;
    final EncoderLayer encoder;
    final DecoderLayer decoder;
    final Linear ff;

    Translator(int embedSize, int srcVocabSize, int tgtVocabSize, int dimFeedforward, double dropout) {
      this.srcEmbedding = new Embedding(srcVocabSize, embedSize);
      this.tgtEmbedding = new Embedding(tgtVocabSize, embedSize);
      this.posEnc = new PositionalEncoding(embedSize, dropout, 5000);
      this.encoder = new EncoderLayer(embedSize, dimFeedforward, dropout);
      this.decoder = new DecoderLayer(embedSize, dimFeedforward, dropout);
      this.ff = new Linear(embedSize, tgtVocabSize);
    }

    Tensor forward(Tensor src, Tensor trg, Tensor srcMask, Tensor tgtMask, Tensor srcPaddingMask,
        Tensor tgtPaddingMask, Tensor memoryKeyPaddingMask) {
      Tensor srcEmb = posEnc.forward(srcEmbedding.forward(src));
      Tensor tgtEmb = posEnc.forward(tgtEmbedding.forward(trg));
      Tensor memory = encoder.forward(srcEmb, srcMask, srcPaddingMask);
      Tensor outs = decoder.forward(tgtEmb, memory, tgtMask, tgtPaddingMask, memoryKeyPaddingMask);
      return ff.forward(outs);
    }
  }

  // main.py

  static double train(Translator model, DataLoader trainDl, CrossEntropyLoss lossFn, Adam optim, Device device) {
    double losses = 0;
    model.train();
    for (Batch batch : trainDl) {
      Tensor src = batch.inputs().t().to(device);
      Tensor tgt = batch.targets().t().to(device);
      Tensor tgtInput = tgt.slice(0, 0, tgt.size(0) - 1);
      Tensor[] masks = createMask(src, tgtInput, PAD_IDX, device);
      Tensor logits = model.forward(src, tgtInput, masks[0], masks[1], masks[2], masks[3], masks[2]);
      optim.zeroGrad();
      Tensor tgtOut = tgt.slice(0, 1, tgt.size(0));
      Tensor loss = lossFn.forward(logits.reshape(-1, logits.size(-1)), tgtOut.reshape(-1));
      loss.backward();
      optim.step();
      losses += loss.item(); // costs time: HostSyncInLoop
    }
    return losses / trainDl.numBatches();
  }

  static double validate(Translator model, DataLoader validDl, CrossEntropyLoss lossFn, Device device) {
    double losses = 0;
    model.eval();
    for (Batch batch : validDl) {
      Tensor src = batch.inputs().t().to(device);
      Tensor tgt = batch.targets().t().to(device);
      Tensor tgtInput = tgt.slice(0, 0, tgt.size(0) - 1);
      Tensor[] masks = createMask(src, tgtInput, PAD_IDX, device);
      Tensor logits = model.forward(src, tgtInput, masks[0], masks[1], masks[2], masks[3], masks[2]);
      Tensor tgtOut = tgt.slice(0, 1, tgt.size(0));
      Tensor loss = lossFn.forward(logits.reshape(-1, logits.size(-1)), tgtOut.reshape(-1));
      losses += loss.item(); // costs time: HostSyncInLoop
    }
    return losses / validDl.numBatches();
  }

  static TensorDataset randomPairs(int n, int srcLen, int tgtLen, int vocab) {
    Tensor src = Tensor.randint(3, vocab, Shape.of(n, srcLen));
    Tensor tgt = Tensor.randint(3, vocab, Shape.of(n, tgtLen));
    Tensor bos = Tensor.full(Shape.of(n, 1), BOS_IDX, DType.INT64, Device.cpu());
    Tensor pad = Tensor.full(Shape.of(n, 2), PAD_IDX, DType.INT64, Device.cpu());
    return new TensorDataset(Tensor.cat(List.of(src, pad), 1), Tensor.cat(List.of(bos, tgt, pad), 1));
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    int vocab = 20;
    DataLoader trainDl = DataLoader.builder(randomPairs(16, 5, 6, vocab)).batchSize(4).shuffle(0).build();
    DataLoader validDl = DataLoader.builder(randomPairs(8, 5, 6, vocab)).batchSize(4).build();
    Translator model = new Translator(16, vocab, vocab, 32, 0.1);
    model.toDevice(device);
    CrossEntropyLoss lossFn = new CrossEntropyLoss();
    Adam optim = new Adam(model.parameters(), 1e-4).betas(0.9, 0.98).eps(1e-9);
    for (int idx = 1; idx <= 2; idx++) {
      double trainLoss = train(model, trainDl, lossFn, optim, device);
      double valLoss = validate(model, validDl, lossFn, device);
      System.out.printf("Epoch: %d, Train loss: %.3f, Val loss: %.3f%n", idx, trainLoss, valLoss);
    }
  }
}
