package corpus.correct;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Model;

/**
 * RoBERTa's embeddings: position ids made from the input ids by the module-level helper
 * {@code create_position_ids_from_input_ids} (on the input's device), and token type ids taken
 * from a registered, non-persistent {@code token_type_ids} buffer.
 *
 * <p>Source: https://github.com/huggingface/transformers/blob/000824f17f924a8b520edf04c597c461fc83356a/src/transformers/models/roberta/modeling_roberta.py
 *
 * <p>Ported: RobertaEmbeddings (its {@code position_ids} and {@code token_type_ids} buffers, forward
 * with the helper, the buffered token type ids expanded to the batch,
 * create_position_ids_from_inputs_embeds with {@code device=inputs_embeds.device}), and the helper
 * as a static method outside the model class, as the module-level function it is. Left out:
 * {@code padding_idx} of the embeddings (the API has none), relative position types, the rest
 * of the model. {@code torch.cumsum(mask, dim=1)} has no equivalent in the API: it is a product
 * with an upper-triangular matrix of ones built on the mask's device.
 *
 * <p>Outcome: completes
 */
public final class RobertaCreatePositionIds {
  private RobertaCreatePositionIds() {}

  record RobertaConfig(int vocabSize, int hiddenSize, int maxPositionEmbeddings, int typeVocabSize, int padTokenId,
      double layerNormEps, double hiddenDropoutProb) {}

  /**
   * Replaces non-padding symbols with their position numbers, starting at padding_idx+1; padding
   * symbols are ignored (modified from fairseq's utils.make_positions).
   */
  static Tensor createPositionIdsFromInputIds(Tensor inputIds, long paddingIdx, long pastKeyValuesLength) {
    Tensor mask = inputIds.ne(paddingIdx).to(DType.FLOAT32);
    long n = mask.size(1);
    Tensor upper = Tensor.arange(n, mask.device()).unsqueeze(1).le(Tensor.arange(n, mask.device()).unsqueeze(0));
    Tensor cumsum = mask.matmul(upper.to(DType.FLOAT32));
    Tensor incrementalIndices = cumsum.add(pastKeyValuesLength).mul(mask);
    return incrementalIndices.to(DType.INT64).add(paddingIdx);
  }

  static final class RobertaEmbeddings extends Model {
    final Embedding wordEmbeddings;
    final Embedding tokenTypeEmbeddings;
    final LayerNorm layerNorm;
    final Dropout dropout;
    @Buffer Tensor positionIds;
    @Buffer(persistent = false) Tensor tokenTypeIds;
    final int paddingIdx;
    final Embedding positionEmbeddings;

    RobertaEmbeddings(RobertaConfig config) {
      wordEmbeddings = new Embedding(config.vocabSize(), config.hiddenSize());
      tokenTypeEmbeddings = new Embedding(config.typeVocabSize(), config.hiddenSize());
      layerNorm = new LayerNorm(Shape.of(config.hiddenSize()), config.layerNormEps(), true, Device.cpu());
      dropout = new Dropout(config.hiddenDropoutProb());
      positionIds = Tensor.arange(config.maxPositionEmbeddings()).expand(1, -1);
      tokenTypeIds = Tensor.zeros(positionIds.size(), DType.INT64, positionIds.device());
      paddingIdx = config.padTokenId();
      positionEmbeddings = new Embedding(config.maxPositionEmbeddings(), config.hiddenSize());
    }

    Tensor forward(Tensor inputIds, Tensor tokenTypeIdsArg, Tensor positionIdsArg, Tensor inputsEmbeds,
        long pastKeyValuesLength) {
      Tensor positionIdsUsed = positionIdsArg;
      if (positionIdsUsed == null) {
        if (inputIds != null) {
          positionIdsUsed = createPositionIdsFromInputIds(inputIds, paddingIdx, pastKeyValuesLength);
        } else {
          positionIdsUsed = createPositionIdsFromInputsEmbeds(inputsEmbeds);
        }
      }
      Shape inputShape = inputIds != null ? inputIds.size() : Shape.of(inputsEmbeds.size(0), inputsEmbeds.size(1));
      long batch = inputShape.get(0), seqLength = inputShape.get(1);
      Tensor tokenTypes = tokenTypeIdsArg;
      if (tokenTypes == null) {
        Tensor buffered = tokenTypeIds.slice(1, 0, seqLength);
        tokenTypes = buffered.expand(batch, seqLength);
      }
      Tensor embeds = inputsEmbeds == null ? wordEmbeddings.forward(inputIds) : inputsEmbeds;
      Tensor embeddings = embeds.add(tokenTypeEmbeddings.forward(tokenTypes));
      embeddings = embeddings.add(positionEmbeddings.forward(positionIdsUsed));
      embeddings = layerNorm.forward(embeddings);
      return dropout.forward(embeddings);
    }

    Tensor createPositionIdsFromInputsEmbeds(Tensor inputsEmbeds) {
      long batch = inputsEmbeds.size(0), sequenceLength = inputsEmbeds.size(1);
      Tensor ids = Tensor.arange(paddingIdx + 1, sequenceLength + paddingIdx + 1, inputsEmbeds.device());
      return ids.unsqueeze(0).expand(batch, sequenceLength);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    RobertaConfig config = new RobertaConfig(40, 16, 20, 1, 1, 1e-5, 0.1);
    RobertaEmbeddings embeddings = new RobertaEmbeddings(config);
    embeddings.toDevice(device);
    Tensor inputIds = Tensor.of(new long[] {0, 7, 9, 12, 2, 1, 1, 0, 5, 6, 8, 11, 14, 2}, Shape.of(2, 7), device);
    Tensor out = embeddings.forward(inputIds, null, null, null, 0);
    Tensor positions = createPositionIdsFromInputIds(inputIds, config.padTokenId(), 0);
    long[] p = positions.toLongArray();
    if (p[5] != 1 || p[6] != 1 || p[4] != 6 || p[13] != 8) {
      throw new IllegalStateException("expected padding positions to stay at padding_idx");
    }
    Tensor fromEmbeds = embeddings.forward(null, null, null, Tensor.randn(2, 7, 16, device), 0);
    out.add(fromEmbeds).sum().backward();
  }
}
