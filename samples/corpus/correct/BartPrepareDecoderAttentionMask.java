package corpus.correct;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.util.ArrayList;
import java.util.List;

/**
 * BART's decoder masks: the module-level helper {@code _make_causal_mask} builds the causal mask
 * on the CPU and the decoder moves it with {@code .to(self.device)}; {@code _expand_mask} expands
 * the padding mask where it already is (the input's device); the learned positions are
 * {@code torch.arange(..., device=self.weight.device)}.
 *
 * <p>Source: https://github.com/huggingface/transformers/blob/00646d2acdbadd8e96384d62aa9cc1370cf358d5/src/transformers/models/bart/modeling_bart.py
 *
 * <p>Ported: _make_causal_mask and _expand_mask as static helpers outside the model classes (they
 * are module-level functions), BartLearnedPositionalEmbedding (an Embedding subclass with the offset
 * of 2), BartAttention's self-attention path with the additive mask, and BartDecoder's
 * _prepare_decoder_attention_mask and forward (embedding scale, positions, layernorm_embedding,
 * layers). Left out: cross-attention and the encoder, the key/value cache, head masks, layerdrop,
 * gradient checkpointing, the output classes. {@code torch.finfo(dtype).min} is
 * {@code -Float.MAX_VALUE}; {@code bmm} is {@code matmul}.
 *
 * <p>Outcome: completes
 */
public final class BartPrepareDecoderAttentionMask {
  private BartPrepareDecoderAttentionMask() {}

  static Tensor makeCausalMask(long bsz, long tgtLen, long pastKeyValuesLength) {
    Tensor mask = Tensor.full(Shape.of(tgtLen, tgtLen), Double.NEGATIVE_INFINITY);
    Tensor maskCond = Tensor.arange(mask.size(-1));
    mask = mask.maskedFill(maskCond.lt(maskCond.add(1).view(mask.size(-1), 1)), 0);
    if (pastKeyValuesLength > 0) {
      mask = Tensor.cat(List.of(Tensor.zeros(Shape.of(tgtLen, pastKeyValuesLength)), mask), -1);
    }
    return mask.unsqueeze(0).unsqueeze(0).expand(bsz, 1, tgtLen, tgtLen + pastKeyValuesLength);
  }

  static Tensor expandMask(Tensor mask, long tgtLen) {
    long bsz = mask.size(0), srcLen = mask.size(1);
    Tensor expandedMask = mask.unsqueeze(1).unsqueeze(1).expand(bsz, 1, tgtLen, srcLen).to(DType.FLOAT32);
    Tensor invertedMask = expandedMask.rsub(1.0);
    return invertedMask.maskedFill(invertedMask.ne(0), -Float.MAX_VALUE);
  }

  static final class BartLearnedPositionalEmbedding extends Embedding {
    final int offset = 2;

    BartLearnedPositionalEmbedding(int numEmbeddings, int embeddingDim) {
      super(numEmbeddings + 2, embeddingDim);
    }

    Tensor forward(long seqLen, long pastKeyValuesLength) {
      Tensor positions = Tensor.arange(pastKeyValuesLength, pastKeyValuesLength + seqLen, weight().device());
      return super.forward(positions.add(offset));
    }
  }

  static final class BartAttention extends Model {
    final int embedDim, numHeads, headDim;
    final double scaling;
    final Linear kProj, vProj, qProj, outProj;

    BartAttention(int embedDim, int numHeads) {
      this.embedDim = embedDim; this.numHeads = numHeads; headDim = embedDim / numHeads;
      scaling = Math.pow(headDim, -0.5);
      kProj = new Linear(embedDim, embedDim); vProj = new Linear(embedDim, embedDim);
      qProj = new Linear(embedDim, embedDim); outProj = new Linear(embedDim, embedDim);
    }

    Tensor shape(Tensor t, long bsz) {
      return t.view(bsz, -1, numHeads, headDim).transpose(1, 2).contiguous().view(bsz * numHeads, -1, headDim);
    }

    Tensor forward(Tensor hiddenStates, Tensor attentionMask) {
      long bsz = hiddenStates.size(0), tgtLen = hiddenStates.size(1);
      Tensor q = shape(qProj.forward(hiddenStates).mul(scaling), bsz);
      Tensor k = shape(kProj.forward(hiddenStates), bsz), v = shape(vProj.forward(hiddenStates), bsz);
      long srcLen = k.size(1);
      Tensor attnWeights = q.matmul(k.transpose(1, 2));
      if (attentionMask != null) {
        attnWeights = attnWeights.view(bsz, numHeads, tgtLen, srcLen).add(attentionMask).view(bsz * numHeads, tgtLen, srcLen);
      }
      Tensor attnOutput = attnWeights.softmax(-1).matmul(v);
      attnOutput = attnOutput.view(bsz, numHeads, tgtLen, headDim).transpose(1, 2).reshape(bsz, tgtLen, embedDim);
      return outProj.forward(attnOutput);
    }
  }

  static final class BartDecoderLayer extends Model {
    final BartAttention selfAttn;
    final LayerNorm selfAttnLayerNorm, finalLayerNorm;
    final Linear fc1, fc2;

    BartDecoderLayer(int d, int heads, int ffn) {
      selfAttn = new BartAttention(d, heads); selfAttnLayerNorm = new LayerNorm(d); finalLayerNorm = new LayerNorm(d);
      fc1 = new Linear(d, ffn); fc2 = new Linear(ffn, d);
    }

    Tensor forward(Tensor hiddenStates, Tensor attentionMask) {
      hiddenStates = selfAttnLayerNorm.forward(hiddenStates.add(selfAttn.forward(hiddenStates, attentionMask)));
      return finalLayerNorm.forward(hiddenStates.add(fc2.forward(fc1.forward(hiddenStates).relu())));
    }
  }

  static final class BartDecoder extends Model {
    final double embedScale;
    final Embedding embedTokens;
    final BartLearnedPositionalEmbedding embedPositions;
    final List<BartDecoderLayer> layers = new ArrayList<>();
    final LayerNorm layernormEmbedding;

    BartDecoder(int vocab, int d, int maxPositions, int nLayers) {
      embedScale = Math.sqrt(d);
      embedTokens = new Embedding(vocab, d);
      embedPositions = new BartLearnedPositionalEmbedding(maxPositions, d);
      for (int i = 0; i < nLayers; i++) {
        layers.add(new BartDecoderLayer(d, 2, 2 * d));
      }
      layernormEmbedding = new LayerNorm(d);
    }

    Tensor prepareDecoderAttentionMask(Tensor attentionMask, Shape inputShape, Tensor inputsEmbeds, long pastLength) {
      Tensor combinedAttentionMask = null;
      long tgtLen = inputShape.get(inputShape.rank() - 1);
      if (tgtLen > 1) {
        combinedAttentionMask = makeCausalMask(inputShape.get(0), tgtLen, pastLength).to(device());  // costs time: CreateThenMove
      }
      if (attentionMask != null) {
        Tensor expandedAttnMask = expandMask(attentionMask, tgtLen);
        combinedAttentionMask = combinedAttentionMask == null ? expandedAttnMask : expandedAttnMask.add(combinedAttentionMask);
      }
      return combinedAttentionMask;
    }

    Tensor forward(Tensor inputIds, Tensor attentionMask) {
      Shape inputShape = inputIds.size();
      Tensor inputsEmbeds = embedTokens.forward(inputIds).mul(embedScale);
      Tensor mask = prepareDecoderAttentionMask(attentionMask, inputShape, inputsEmbeds, 0);
      Tensor positions = embedPositions.forward(inputShape.get(1), 0);
      Tensor hiddenStates = layernormEmbedding.forward(inputsEmbeds.add(positions));
      for (BartDecoderLayer layer : layers) {
        hiddenStates = layer.forward(hiddenStates, mask);
      }
      return hiddenStates;
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    BartDecoder decoder = new BartDecoder(40, 16, 32, 2);
    Linear lmHead = new Linear(16, 40);
    decoder.toDevice(device);
    lmHead.toDevice(device);
    List<dev.ondevice.Parameter> params = new ArrayList<>(decoder.parameters());
    params.addAll(lmHead.parameters());
    AdamW optimizer = new AdamW(params, 1e-3);
    Tensor inputIds = Tensor.randint(3, 40, Shape.of(3, 7), device);
    Tensor attentionMask = Tensor.arange(7, device).unsqueeze(0).lt(Tensor.of(new long[] {7, 5, 4}, Shape.of(3, 1), device));
    for (int step = 0; step < 2; step++) {
      Tensor logits = lmHead.forward(decoder.forward(inputIds, attentionMask.to(DType.INT64)));
      Tensor loss = new dev.ondevice.nn.CrossEntropyLoss().forward(logits.view(-1, 40), inputIds.view(-1));
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
  }
}
