package corpus.correct;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;

/**
 * Hugging Face BERT's embeddings and self-attention with the model-level mask helpers: {@code
 * BertEmbeddings} registers {@code position_ids} ({@code arange(max_position_embeddings)
 * .expand((1, -1))}) and an all-zero {@code token_type_ids} as non-persistent buffers, and when no
 * token types are passed it slices and expands the buffered zeros to the batch; {@code BertModel}
 * builds an all-ones attention mask on the input's device when none is given and turns it into an
 * additive mask with {@code get_extended_attention_mask} ({@code mask[:, None, None, :]}, {@code
 * (1.0 - mask) * torch.finfo(dtype).min}); the self-attention adds it to the scores.
 *
 * <p>Source: https://github.com/huggingface/transformers/blob/8ec58104181bfb34d824d89bccc009b4f6be6e0e/src/transformers/models/bert/modeling_bert.py
 * (and modeling_utils.py {@code get_extended_attention_mask})
 *
 * <p>Ported: BertEmbeddings (absolute positions), the eager BertSelfAttention with its output
 * projection, BertModel.forward's mask and token-type defaults, the pooler and a sequence
 * classification head, trained for a few steps. Left out: cross-attention, past key values, head
 * masks, the intermediate feed-forward block and the other encoder layers.
 *
 * <p>Outcome: completes
 */
public final class HfBertEmbeddingsBufferedTokenTypeIds {
  private HfBertEmbeddingsBufferedTokenTypeIds() {}

  static final class BertConfig {
    int vocabSize = 100;
    int hiddenSize = 32;
    int numAttentionHeads = 4;
    int maxPositionEmbeddings = 64;
    int typeVocabSize = 2;
    double layerNormEps = 1e-12;
    double hiddenDropoutProb = 0.1;
    double attentionProbsDropoutProb = 0.1;
    int numLabels = 3;
  }

  static final class BertEmbeddings extends Model {
    final Embedding wordEmbeddings;
    final Embedding positionEmbeddings;
    final Embedding tokenTypeEmbeddings;
    final LayerNorm layerNorm;
    final Dropout dropout;
    @Buffer(persistent = false) Tensor positionIds;
    @Buffer(persistent = false) Tensor tokenTypeIds;

    BertEmbeddings(BertConfig config) {
      wordEmbeddings = new Embedding(config.vocabSize, config.hiddenSize);
      positionEmbeddings = new Embedding(config.maxPositionEmbeddings, config.hiddenSize);
      tokenTypeEmbeddings = new Embedding(config.typeVocabSize, config.hiddenSize);
      layerNorm = new LayerNorm(Shape.of(config.hiddenSize), config.layerNormEps, true, Device.cpu());
      dropout = new Dropout(config.hiddenDropoutProb);
      positionIds = Tensor.arange(config.maxPositionEmbeddings).expand(1, config.maxPositionEmbeddings);
      tokenTypeIds = Tensor.zeros(positionIds.size(), DType.INT64, Device.cpu());
    }

    Tensor forward(Tensor inputIds, Tensor tokenTypeIds, Tensor positionIds, int pastKeyValuesLength) {
      Shape inputShape = inputIds.size();
      long seqLength = inputShape.get(1);
      if (positionIds == null) {
        positionIds = this.positionIds.slice(1, pastKeyValuesLength, seqLength + pastKeyValuesLength);
      }
      if (tokenTypeIds == null) {
        Tensor bufferedTokenTypeIds = this.tokenTypeIds.slice(1, 0, seqLength);
        Tensor bufferedTokenTypeIdsExpanded = bufferedTokenTypeIds.expand(inputShape.get(0), seqLength);
        tokenTypeIds = bufferedTokenTypeIdsExpanded;
      }
      Tensor inputsEmbeds = wordEmbeddings.forward(inputIds);
      Tensor tokenTypeEmbeddings = this.tokenTypeEmbeddings.forward(tokenTypeIds);
      Tensor embeddings = inputsEmbeds.add(tokenTypeEmbeddings);
      Tensor positionEmbeddings = this.positionEmbeddings.forward(positionIds);
      embeddings = embeddings.add(positionEmbeddings);
      embeddings = layerNorm.forward(embeddings);
      return dropout.forward(embeddings);
    }
  }

  static final class BertSelfAttention extends Model {
    final int numAttentionHeads;
    final int attentionHeadSize;
    final int allHeadSize;
    final Linear query;
    final Linear key;
    final Linear value;
    final Dropout dropout;

    BertSelfAttention(BertConfig config) {
      numAttentionHeads = config.numAttentionHeads;
      attentionHeadSize = config.hiddenSize / config.numAttentionHeads;
      allHeadSize = numAttentionHeads * attentionHeadSize;
      query = new Linear(config.hiddenSize, allHeadSize);
      key = new Linear(config.hiddenSize, allHeadSize);
      value = new Linear(config.hiddenSize, allHeadSize);
      dropout = new Dropout(config.attentionProbsDropoutProb);
    }

    Tensor transposeForScores(Tensor x) {
      return x.view(x.size(0), x.size(1), numAttentionHeads, attentionHeadSize).permute(0, 2, 1, 3);
    }

    Tensor forward(Tensor hiddenStates, Tensor attentionMask) {
      Tensor queryLayer = transposeForScores(query.forward(hiddenStates));
      Tensor keyLayer = transposeForScores(key.forward(hiddenStates));
      Tensor valueLayer = transposeForScores(value.forward(hiddenStates));
      Tensor attentionScores = queryLayer.matmul(keyLayer.transpose(-1, -2));
      attentionScores = attentionScores.div(Math.sqrt(attentionHeadSize));
      if (attentionMask != null) {
        attentionScores = attentionScores.add(attentionMask);
      }
      Tensor attentionProbs = dropout.forward(attentionScores.softmax(-1));
      Tensor contextLayer = attentionProbs.matmul(valueLayer).permute(0, 2, 1, 3).contiguous();
      return contextLayer.view(contextLayer.size(0), contextLayer.size(1), allHeadSize);
    }
  }

  static final class BertSelfOutput extends Model {
    final Linear dense;
    final LayerNorm layerNorm;
    final Dropout dropout;

    BertSelfOutput(BertConfig config) {
      dense = new Linear(config.hiddenSize, config.hiddenSize);
      layerNorm = new LayerNorm(Shape.of(config.hiddenSize), config.layerNormEps, true, Device.cpu());
      dropout = new Dropout(config.hiddenDropoutProb);
    }

    Tensor forward(Tensor hiddenStates, Tensor inputTensor) {
      return layerNorm.forward(dropout.forward(dense.forward(hiddenStates)).add(inputTensor));
    }
  }

  static final class BertModel extends Model {
    final BertEmbeddings embeddings;
    final BertSelfAttention attention;
    final BertSelfOutput output;
    final Linear pooler;

    BertModel(BertConfig config) {
      embeddings = new BertEmbeddings(config);
      attention = new BertSelfAttention(config);
      output = new BertSelfOutput(config);
      pooler = new Linear(config.hiddenSize, config.hiddenSize);
    }

    /** modeling_utils.py ModuleUtilsMixin.get_extended_attention_mask, for an encoder. */
    static Tensor getExtendedAttentionMask(Tensor attentionMask, DType dtype) {
      Tensor extendedAttentionMask = attentionMask.unsqueeze(1).unsqueeze(2);
      extendedAttentionMask = extendedAttentionMask.to(dtype);
      return extendedAttentionMask.rsub(1.0).mul(-Float.MAX_VALUE);
    }

    Tensor[] forward(Tensor inputIds, Tensor attentionMask, Tensor tokenTypeIds) {
      Shape inputShape = inputIds.size();
      long batchSize = inputShape.get(0);
      long seqLength = inputShape.get(1);
      Device device = inputIds.device();
      if (attentionMask == null) {
        attentionMask = Tensor.ones(Shape.of(batchSize, seqLength), device);
      }
      if (tokenTypeIds == null) {
        Tensor bufferedTokenTypeIds = embeddings.tokenTypeIds.slice(1, 0, seqLength);
        tokenTypeIds = bufferedTokenTypeIds.expand(batchSize, seqLength);
      }
      Tensor extendedAttentionMask = getExtendedAttentionMask(attentionMask, DType.FLOAT32);
      Tensor embeddingOutput = embeddings.forward(inputIds, tokenTypeIds, null, 0);
      Tensor sequenceOutput = output.forward(attention.forward(embeddingOutput, extendedAttentionMask), embeddingOutput);
      Tensor pooledOutput = pooler.forward(sequenceOutput.select(1, 0)).tanh();
      return new Tensor[] {sequenceOutput, pooledOutput};
    }
  }

  static final class BertForSequenceClassification extends Model {
    final BertModel bert;
    final Dropout dropout;
    final Linear classifier;
    final CrossEntropyLoss lossFct = new CrossEntropyLoss();

    BertForSequenceClassification(BertConfig config) {
      bert = new BertModel(config);
      dropout = new Dropout(config.hiddenDropoutProb);
      classifier = new Linear(config.hiddenSize, config.numLabels);
    }

    Tensor[] forward(Tensor inputIds, Tensor attentionMask, Tensor tokenTypeIds, Tensor labels) {
      Tensor pooledOutput = bert.forward(inputIds, attentionMask, tokenTypeIds)[1];
      Tensor logits = classifier.forward(dropout.forward(pooledOutput));
      Tensor loss = labels == null ? null : lossFct.forward(logits, labels);
      return new Tensor[] {loss, logits};
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    BertConfig config = new BertConfig();
    BertForSequenceClassification model = new BertForSequenceClassification(config);
    model.toDevice(device);
    AdamW optimizer = new AdamW(model.parameters(), 1e-3);
    model.train();
    for (int step = 0; step < 3; step++) {
      Tensor inputIds = Tensor.randint(0, config.vocabSize, Shape.of(4, 10), device);
      Tensor labels = Tensor.randint(0, config.numLabels, Shape.of(4), device);
      Tensor attentionMask = step == 0 ? null : Tensor.rand(Shape.of(4, 10), device).gt(0.2).to(DType.INT64);
      Tensor loss = model.forward(inputIds, attentionMask, null, labels)[0];
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
    model.eval();
    Tensor logits = model.forward(Tensor.randint(0, config.vocabSize, Shape.of(2, 7), device), null, null, null)[1];
    System.out.println(logits.shape());
  }
}
