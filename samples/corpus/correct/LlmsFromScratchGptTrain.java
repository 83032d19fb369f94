package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.AdamW;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Sebastian Raschka's "Build a Large Language Model (From Scratch)", chapter 5 {@code gpt_train.py}
 * with the GPT of chapters 2 to 4 ({@code previous_chapters.py}): a sliding-window
 * {@code GPTDatasetV1}, {@code GPTModel} (multi-head attention with a registered causal
 * {@code mask} buffer, its own {@code LayerNorm} and tanh {@code GELU}, position embeddings over
 * {@code torch.arange(seq_len, device=in_idx.device)}), trained by {@code train_model_simple} with
 * {@code calc_loss_batch} moving each batch to the device, {@code evaluate_model} every
 * {@code eval_freq} steps and a greedy sample ({@code generate_text_simple}) after every epoch.
 *
 * <p>Source: https://github.com/rasbt/LLMs-from-scratch/blob/f0e4c99bc376e55cbdde5b02713340a70d84ff17/ch05/01_main-chapter-code/gpt_train.py
 *
 * <p>Ported: from the source above and https://github.com/rasbt/LLMs-from-scratch/blob/7ca7c47e4aa477ff7dbcdccfe6693610a94a8541/ch05/01_main-chapter-code/previous_chapters.py,
 * as written, with a tiny configuration (context 16, 32 channels, 4 heads, 2 layers, 2 epochs) and
 * a short text with a character tokenizer instead of "the-verdict.txt" and tiktoken. Left out: the
 * download, the loss plot and the final {@code torch.save}/{@code load_state_dict}. The evaluation
 * reads the training set through a second loader over the same text, since a Java
 * {@code DataLoader} runs one pass at a time (PyTorch's may be iterated inside its own loop).
 *
 * <p>Outcome: completes
 */
public final class LlmsFromScratchGptTrain {
  private LlmsFromScratchGptTrain() {}

  static final int VOCAB_SIZE_UNSET = -1;
  static int vocabSize = VOCAB_SIZE_UNSET;
  static final int CONTEXT_LENGTH = 16;
  static final int EMB_DIM = 32;
  static final int N_HEADS = 4;
  static final int N_LAYERS = 2;
  static final double DROP_RATE = 0.1;
  static final boolean QKV_BIAS = false;

  /** A character tokenizer standing in for tiktoken's GPT-2 encoding. */
  static final class Tokenizer {
    final String chars;

    Tokenizer(String text) {
      TreeSet<Character> set = new TreeSet<>();
      for (char c : text.toCharArray()) {
        set.add(c);
      }
      StringBuilder sb = new StringBuilder();
      set.forEach(sb::append);
      chars = sb.toString();
    }

    long[] encode(String text) {
      long[] ids = new long[text.length()];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = chars.indexOf(text.charAt(i));
      }
      return ids;
    }

    String decode(long[] ids) {
      StringBuilder sb = new StringBuilder();
      for (long id : ids) {
        sb.append(chars.charAt((int) id));
      }
      return sb.toString();
    }
  }

  /** {@code create_dataloader_v1} over {@code GPTDatasetV1}: sliding windows of max_length tokens. */
  static DataLoader createDataloaderV1(String txt, Tokenizer tokenizer, int batchSize, int maxLength, int stride,
      boolean shuffle, boolean dropLast) {
    long[] tokenIds = tokenizer.encode(txt);
    List<Tensor> inputIds = new ArrayList<>();
    List<Tensor> targetIds = new ArrayList<>();
    for (int i = 0; i < tokenIds.length - maxLength; i += stride) {
      long[] input = new long[maxLength];
      long[] target = new long[maxLength];
      System.arraycopy(tokenIds, i, input, 0, maxLength);
      System.arraycopy(tokenIds, i + 1, target, 0, maxLength);
      inputIds.add(Tensor.of(input));
      targetIds.add(Tensor.of(target));
    }
    TensorDataset dataset = new TensorDataset(Tensor.stack(inputIds), Tensor.stack(targetIds));
    DataLoader.Builder b = DataLoader.builder(dataset).batchSize(batchSize).dropLast(dropLast);
    if (shuffle) {
      b.shuffle(123);
    }
    return b.build();
  }

  static final class MultiHeadAttention extends Layer {
    final int dOut;
    final int numHeads;
    final int headDim;
    final Linear wQuery;
    final Linear wKey;
    final Linear wValue;
    final Linear outProj;
    final Dropout dropout;
    @Buffer Tensor mask;

    MultiHeadAttention(int dIn, int dOut, int contextLength, double dropout, int numHeads, boolean qkvBias) {
      this.dOut = dOut;
      this.numHeads = numHeads;
      this.headDim = dOut / numHeads;
      wQuery = new Linear(dIn, dOut, qkvBias, Device.cpu());
      wKey = new Linear(dIn, dOut, qkvBias, Device.cpu());
      wValue = new Linear(dIn, dOut, qkvBias, Device.cpu());
      outProj = new Linear(dOut, dOut);
      this.dropout = new Dropout(dropout);
      // torch.triu(torch.ones(context_length, context_length), diagonal=1)
      mask = Tensor.arange(contextLength).unsqueeze(0).gt(Tensor.arange(contextLength).unsqueeze(1)).to(DType.FLOAT32);
    }

    @Override
    public Tensor forward(Tensor x) {
      long b = x.size(0);
      long numTokens = x.size(1);
      Tensor keys = wKey.forward(x).view(b, numTokens, numHeads, headDim).transpose(1, 2);
      Tensor queries = wQuery.forward(x).view(b, numTokens, numHeads, headDim).transpose(1, 2);
      Tensor values = wValue.forward(x).view(b, numTokens, numHeads, headDim).transpose(1, 2);

      Tensor attnScores = queries.matmul(keys.transpose(2, 3));
      Tensor maskBool = mask.gt(0).slice(0, 0, numTokens).slice(1, 0, numTokens);
      attnScores = attnScores.maskedFill(maskBool, Double.NEGATIVE_INFINITY);
      Tensor attnWeights = attnScores.div(Math.sqrt(keys.size(-1))).softmax(-1);
      attnWeights = dropout.forward(attnWeights);

      Tensor contextVec = attnWeights.matmul(values).transpose(1, 2);
      contextVec = contextVec.reshape(b, numTokens, dOut);
      return outProj.forward(contextVec);
    }
  }

  static final class LayerNorm extends Layer {
    final double eps = 1e-5;
    final Parameter scale;
    final Parameter shift;

    LayerNorm(int embDim) {
      scale = new Parameter(Tensor.ones(Shape.of(embDim)));
      shift = new Parameter(Tensor.zeros(Shape.of(embDim)));
    }

    @Override
    public Tensor forward(Tensor x) {
      Tensor mean = x.mean(-1, true);
      Tensor var = x.var(new int[] {-1}, false, true);
      Tensor normX = x.sub(mean).div(var.add(eps).sqrt());
      return scale.mul(normX).add(shift);
    }
  }

  static final class Gelu extends Layer {
    @Override
    public Tensor forward(Tensor x) {
      return x.mul(0.5).mul(Tensor.scalar(2.0 / Math.PI).sqrt().mul(x.add(x.pow(3).mul(0.044715))).tanh().add(1));
    }
  }

  static final class FeedForward extends Layer {
    final Sequential layers = new Sequential(new Linear(EMB_DIM, 4 * EMB_DIM), new Gelu(), new Linear(4 * EMB_DIM, EMB_DIM));

    @Override
    public Tensor forward(Tensor x) {
      return layers.forward(x);
    }
  }

  static final class TransformerBlock extends Layer {
    final MultiHeadAttention att = new MultiHeadAttention(EMB_DIM, EMB_DIM, CONTEXT_LENGTH, DROP_RATE, N_HEADS, QKV_BIAS);
    final FeedForward ff = new FeedForward();
    final LayerNorm norm1 = new LayerNorm(EMB_DIM);
    final LayerNorm norm2 = new LayerNorm(EMB_DIM);
    final Dropout dropShortcut = new Dropout(DROP_RATE);

    @Override
    public Tensor forward(Tensor x) {
      Tensor shortcut = x;
      x = norm1.forward(x);
      x = att.forward(x);
      x = dropShortcut.forward(x);
      x = x.add(shortcut);

      shortcut = x;
      x = norm2.forward(x);
      x = ff.forward(x);
      x = dropShortcut.forward(x);
      return x.add(shortcut);
    }
  }

  static final class GptModel extends Model {
    final Embedding tokEmb = new Embedding(vocabSize, EMB_DIM);
    final Embedding posEmb = new Embedding(CONTEXT_LENGTH, EMB_DIM);
    final Dropout dropEmb = new Dropout(DROP_RATE);
    final Sequential trfBlocks;
    final LayerNorm finalNorm = new LayerNorm(EMB_DIM);
    final Linear outHead = new Linear(EMB_DIM, vocabSize, false, Device.cpu());

    GptModel() {
      Layer[] blocks = new Layer[N_LAYERS];
      for (int i = 0; i < N_LAYERS; i++) {
        blocks[i] = new TransformerBlock();
      }
      trfBlocks = new Sequential(blocks);
    }

    Tensor forward(Tensor inIdx) {
      long seqLen = inIdx.size(1);
      Tensor tokEmbeds = tokEmb.forward(inIdx);
      Tensor posEmbeds = posEmb.forward(Tensor.arange(seqLen, inIdx.device()));
      Tensor x = dropEmb.forward(tokEmbeds.add(posEmbeds));
      x = trfBlocks.forward(x);
      x = finalNorm.forward(x);
      return outHead.forward(x);
    }
  }

  static Tensor generateTextSimple(GptModel model, Tensor idx, int maxNewTokens, int contextSize) {
    for (int i = 0; i < maxNewTokens; i++) {
      long t = idx.size(1);
      Tensor idxCond = idx.slice(1, Math.max(0, t - contextSize), t);
      Tensor logits;
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        logits = model.forward(idxCond);
      }
      logits = logits.select(1, logits.size(1) - 1);
      Tensor idxNext = logits.argmax(-1, true);
      idx = Tensor.cat(List.of(idx, idxNext), 1);
    }
    return idx;
  }

  static Tensor textToTokenIds(String text, Tokenizer tokenizer) {
    return Tensor.of(tokenizer.encode(text)).unsqueeze(0);
  }

  static String tokenIdsToText(Tensor tokenIds, Tokenizer tokenizer) {
    return tokenizer.decode(tokenIds.squeeze(0).toLongArray());
  }

  static Tensor calcLossBatch(Tensor inputBatch, Tensor targetBatch, GptModel model, Device device) {
    inputBatch = inputBatch.to(device);
    targetBatch = targetBatch.to(device);
    Tensor logits = model.forward(inputBatch);
    return new CrossEntropyLoss().forward(logits.flatten(0, 1), targetBatch.flatten());
  }

  static double calcLossLoader(DataLoader dataLoader, GptModel model, Device device, Integer numBatches) {
    double totalLoss = 0.;
    if (dataLoader.numBatches() == 0) {
      return Double.NaN;
    } else if (numBatches == null) {
      numBatches = dataLoader.numBatches();
    } else {
      numBatches = Math.min(numBatches, dataLoader.numBatches());
    }
    int i = 0;
    for (Batch b : dataLoader) {
      if (i < numBatches) {
        Tensor loss = calcLossBatch(b.inputs(), b.targets(), model, device);
        totalLoss += loss.item(); // costs time: HostSyncInLoop
      } else {
        break;
      }
      i++;
    }
    return totalLoss / numBatches;
  }

  static double[] evaluateModel(GptModel model, DataLoader trainLoader, DataLoader valLoader, Device device, int evalIter) {
    model.eval();
    double trainLoss;
    double valLoss;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      trainLoss = calcLossLoader(trainLoader, model, device, evalIter);
      valLoss = calcLossLoader(valLoader, model, device, evalIter);
    }
    model.train();
    return new double[] {trainLoss, valLoss};
  }

  static void generateAndPrintSample(GptModel model, Tokenizer tokenizer, Device device, String startContext) {
    model.eval();
    int contextSize = (int) model.posEmb.weight().size(0);
    Tensor encoded = textToTokenIds(startContext, tokenizer).to(device); // costs time: CreateThenMove
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor tokenIds = generateTextSimple(model, encoded, 20, contextSize);
      String decodedText = tokenIdsToText(tokenIds, tokenizer);
      System.out.println(decodedText.replace("\n", " "));
    }
    model.train();
  }

  static void trainModelSimple(GptModel model, DataLoader trainLoader, DataLoader trainEvalLoader, DataLoader valLoader, AdamW optimizer, Device device,
      int numEpochs, int evalFreq, int evalIter, String startContext, Tokenizer tokenizer) {
    List<Double> trainLosses = new ArrayList<>();
    List<Double> valLosses = new ArrayList<>();
    List<Long> trackTokensSeen = new ArrayList<>();
    long tokensSeen = 0;
    int globalStep = -1;

    for (int epoch = 0; epoch < numEpochs; epoch++) {
      model.train();
      for (Batch b : trainLoader) {
        optimizer.zeroGrad();
        Tensor loss = calcLossBatch(b.inputs(), b.targets(), model, device);
        loss.backward();
        optimizer.step();
        tokensSeen += b.inputs().numel();
        globalStep += 1;

        // Optional evaluation step
        if (globalStep % evalFreq == 0) {
          double[] losses = evaluateModel(model, trainEvalLoader, valLoader, device, evalIter);
          trainLosses.add(losses[0]);
          valLosses.add(losses[1]);
          trackTokensSeen.add(tokensSeen);
          System.out.printf("Ep %d (Step %06d): Train loss %.3f, Val loss %.3f%n", epoch + 1, globalStep, losses[0], losses[1]);
        }
      }
      // Print a sample text after each epoch
      generateAndPrintSample(model, tokenizer, device, startContext);
    }
  }

  public static void run(Device device) {
    String textData = ("I had always thought Jack Gisburn rather a cheap genius--though a good fellow enough--so it was no "
        + "great surprise to me to hear that, in the height of his glory, he had dropped his painting. ").repeat(3);
    Tokenizer tokenizer = new Tokenizer(textData);
    vocabSize = tokenizer.chars.length();

    GptModel model = new GptModel();
    model.toDevice(device);
    AdamW optimizer = new AdamW(model.parameters(), 5e-4).weightDecay(0.1);

    double trainRatio = 0.90;
    int splitIdx = (int) (trainRatio * textData.length());
    DataLoader trainLoader = createDataloaderV1(textData.substring(0, splitIdx), tokenizer, 2, CONTEXT_LENGTH, CONTEXT_LENGTH, true, true);
    // a second loader over the training text: a Java DataLoader runs one pass at a time
    DataLoader trainEvalLoader = createDataloaderV1(textData.substring(0, splitIdx), tokenizer, 2, CONTEXT_LENGTH, CONTEXT_LENGTH, true, true);
    DataLoader valLoader = createDataloaderV1(textData.substring(splitIdx), tokenizer, 2, CONTEXT_LENGTH, CONTEXT_LENGTH, false, false);

    trainModelSimple(model, trainLoader, trainEvalLoader, valLoader, optimizer, device, 2, 5, 1, "I had always", tokenizer);
  }
}
