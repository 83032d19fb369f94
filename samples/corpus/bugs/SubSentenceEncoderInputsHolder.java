package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The usage example of the Sub-Sentence Encoder: sentences and their sub-sentence parts are
 * tokenized by {@code convert_example_to_features} into a {@code PropPairModelInput} (a plain
 * holder of the tokenizer's {@code BatchEncoding}, the number of propositions per sentence and the
 * proposition token masks), encoded by {@code LitSubEncoder} (backbone encoder, masked mean
 * pooling per proposition, MLP) restored from a checkpoint saved on the GPU, and compared with a
 * cosine similarity.
 *
 * <p>Source: https://github.com/schen149/sub-sentence-encoder/issues/1 (README step #3; the
 * maintainer's answer added the move to the README in commit 179a627; utils/data_utils.py and
 * model/pl_subencoder.py at 490d3d0)
 *
 * <p>Bug: the tensors inside {@code sent1_inputs}/{@code sent2_inputs} stay on the CPU while the
 * model is on {@code cuda:0}; the backbone's embedding lookup fails ({@code index_select}). The fix
 * calls the holder's own {@code to}: {@code sent1_inputs.to("cuda")} and {@code
 * sent2_inputs.to("cuda")} before encoding.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class SubSentenceEncoderInputsHolder {
  private SubSentenceEncoderInputsHolder() {}

  /** The tokenizer's {@code BatchEncoding}: a dict of tensors with a {@code to(device)}. */
  static final class BatchEncoding {
    final Map<String, Tensor> data = new LinkedHashMap<>();

    BatchEncoding to(Device device) {
      data.replaceAll((k, v) -> v.to(device));
      return this;
    }
  }

  static final class PropPairModelInput {
    BatchEncoding encoderInputs;
    Tensor numPropPerSentence;
    Tensor allPropMask;
    Tensor propLabels;

    PropPairModelInput(BatchEncoding encoderInputs, Tensor numPropPerSentence, Tensor allPropMask, Tensor propLabels) {
      this.encoderInputs = encoderInputs;
      this.numPropPerSentence = numPropPerSentence;
      this.allPropMask = allPropMask;
      this.propLabels = propLabels;
    }

    PropPairModelInput to(Device device) {
      encoderInputs = encoderInputs.to(device);
      numPropPerSentence = numPropPerSentence.to(device);
      allPropMask = allPropMask.to(device);
      if (propLabels != null) {
        propLabels = propLabels.to(device);
      }
      return this;
    }
  }

  /** An example: a sentence and its parts, each part a list of word positions (the aligned spans). */
  record Example(String text, List<int[]> spans) {}

  /** Tokenizes (whitespace, padded to maxSeqLen) and turns the spans into token masks. */
  static PropPairModelInput convertExampleToFeatures(List<Example> batchExamples, int vocab, int maxSeqLen) {
    int b = batchExamples.size();
    long[] ids = new long[b * maxSeqLen];
    float[] attention = new float[b * maxSeqLen];
    List<float[]> propMasks = new ArrayList<>();
    long[] numProps = new long[b];
    for (int s = 0; s < b; s++) {
      String[] words = batchExamples.get(s).text().split(" ");
      for (int w = 0; w < Math.min(words.length, maxSeqLen); w++) {
        ids[s * maxSeqLen + w] = Math.floorMod(words[w].hashCode(), vocab);
        attention[s * maxSeqLen + w] = 1;
      }
      for (int[] span : batchExamples.get(s).spans()) {
        float[] mask = new float[maxSeqLen];
        for (int w : span) {
          mask[w] = 1;
        }
        propMasks.add(mask);
      }
      numProps[s] = batchExamples.get(s).spans().size();
    }
    BatchEncoding enc = new BatchEncoding();
    enc.data.put("input_ids", Tensor.of(ids, b, maxSeqLen));
    enc.data.put("attention_mask", Tensor.of(attention, b, maxSeqLen));
    float[] all = new float[propMasks.size() * maxSeqLen];
    for (int i = 0; i < propMasks.size(); i++) {
      System.arraycopy(propMasks.get(i), 0, all, i * maxSeqLen, maxSeqLen);
    }
    return new PropPairModelInput(enc, Tensor.of(numProps), Tensor.of(all, propMasks.size(), maxSeqLen), null);
  }

  /** Stands in for the T5 encoder: embedding, a feed-forward block and a layer norm. */
  static final class Backbone extends Model {
    final Embedding embed;
    final Linear ff;
    final LayerNorm norm;

    Backbone(int vocab, int hidden) {
      embed = new Embedding(vocab, hidden);
      ff = new Linear(hidden, hidden);
      norm = new LayerNorm(hidden);
    }

    Tensor forward(Tensor inputIds, Tensor attentionMask) {
      Tensor h = embed.forward(inputIds); // same bug
      h = h.add(ff.forward(h).relu()).mul(attentionMask.unsqueeze(-1));
      return norm.forward(h); // last_hidden_state
    }
  }

  static final class LitSubEncoder extends Model {
    final Backbone encoder;
    final Linear linear1;
    final Linear linear2;

    LitSubEncoder(int vocab, int hidden, int outputDim) {
      encoder = new Backbone(vocab, hidden);
      linear1 = new Linear(hidden, hidden);
      linear2 = new Linear(hidden, outputDim);
    }

    /** {@code repeat_interleave(num_prop_per_sentence, dim=0)}. */
    static Tensor repeatInterleave(Tensor x, Tensor repeats) {
      long[] r = repeats.toLongArray();
      List<Long> index = new ArrayList<>();
      for (int i = 0; i < r.length; i++) {
        for (long k = 0; k < r[i]; k++) {
          index.add((long) i);
        }
      }
      long[] idx = index.stream().mapToLong(Long::longValue).toArray();
      return x.indexSelect(0, Tensor.of(idx, Shape.of(idx.length), x.device()));
    }

    /** {@code Pooling}: mean of the token embeddings under the mask. */
    static Tensor pool(Tensor tokenEmbeddings, Tensor attentionMask) {
      Tensor mask = attentionMask.unsqueeze(-1).expandAs(tokenEmbeddings);
      Tensor sum = tokenEmbeddings.mul(mask).sum(1);
      return sum.div(mask.sum(1).clampMin(1e-9));
    }

    Tensor forward(BatchEncoding encoderInputs, Tensor numPropPerSentence, Tensor allPropMask) {
      Tensor encoded = encoder.forward(encoderInputs.data.get("input_ids"), encoderInputs.data.get("attention_mask"));
      Tensor encodedRepeat = repeatInterleave(encoded, numPropPerSentence);
      Tensor propPooled = pool(encodedRepeat, allPropMask);
      return linear2.forward(linear1.forward(propPooled).relu());
    }
  }

  static Tensor cosineSimilarity(Tensor a, Tensor b) {
    return a.mul(b).sum(-1).div(a.square().sum(-1).sqrt().mul(b.square().sum(-1).sqrt()).clampMin(1e-8));
  }

  public static void run(Device device) {
    // model = LitSubEncoder.load_from_checkpoint(model_path): restored where it was saved, on the GPU
    LitSubEncoder model = new LitSubEncoder(100, 16, 8);
    model.toDevice(device);
    model.eval();

    Example sent1 = new Example("Dracula is a novel by Bram Stoker , published in 1897 .",
        List.of(new int[] {0, 1, 4, 5, 6}, new int[] {0, 1, 8, 9, 10}));
    Example sent2 = new Example("Dracula - a 19th-century Gothic novel , featuring Count Dracula as the protagonist .",
        List.of(new int[] {0, 2, 3, 5}));

    PropPairModelInput sent1Inputs = convertExampleToFeatures(List.of(sent1), 100, 16); // bug: held-outside-models
    PropPairModelInput sent2Inputs = convertExampleToFeatures(List.of(sent2), 100, 16); // bug: held-outside-models

    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor sent1Embeddings = model.forward(sent1Inputs.encoderInputs, sent1Inputs.numPropPerSentence, sent1Inputs.allPropMask); // same bug
      Tensor sent2Embeddings = model.forward(sent2Inputs.encoderInputs, sent2Inputs.numPropPerSentence, sent2Inputs.allPropMask);
      System.out.println(cosineSimilarity(sent1Embeddings.select(0, 0), sent1Embeddings.select(0, 1)));
      System.out.println(cosineSimilarity(sent1Embeddings.select(0, 1), sent2Embeddings.select(0, 0)));
    }
  }
}
