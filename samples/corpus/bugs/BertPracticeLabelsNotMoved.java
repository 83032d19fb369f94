package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * BertPractice's sentiment fine-tuning script: each batch is a dict of {@code label} and {@code
 * text}; {@code train} and {@code evaluate} tokenize the texts, move the tokenizer's output with
 * {@code tokenized_text.to(device)}, and call {@code model(**tokenized_text, labels=label)}, the
 * Hugging Face model computing the loss from the labels inside its forward.
 *
 * <p>Source: https://github.com/zhangxiann/BertPractice/pull/1
 *
 * <p>Bug: {@code label = batch["label"]} is never moved ("Lable is not putted into cuda"); the
 * model's loss meets the GPU logits and the CPU labels (fix: {@code batch["label"].to(device)} in
 * both loops).
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class BertPracticeLabelsNotMoved {
  private BertPracticeLabelsNotMoved() {}

  static final int VOCAB = 40;

  /** A stand-in for {@code BertForSequenceClassification}: returns (loss, logits) when given labels. */
  static final class BertForSequenceClassification extends Model {
    final Embedding embeddings = new Embedding(VOCAB, 8);
    final Linear classifier = new Linear(8, 2);

    Tensor[] forward(Tensor inputIds, Tensor attentionMask, Tensor labels) {
      Tensor mask = attentionMask.to(DType.FLOAT32).unsqueeze(-1);
      Tensor pooled = embeddings.forward(inputIds).mul(mask).sum(1).div(mask.sum(1));
      Tensor logits = classifier.forward(pooled);
      Tensor loss = new CrossEntropyLoss().forward(logits.view(-1, 2), labels.view(-1));
      return new Tensor[] {loss, logits};
    }
  }

  /** {@code BertTokenizer(...)(text, padding=True, return_tensors="pt")}: a BatchEncoding. */
  static Map<String, Tensor> tokenizer(List<String> text) {
    int len = text.stream().mapToInt(String::length).max().orElse(1);
    long[] ids = new long[text.size() * len];
    long[] mask = new long[text.size() * len];
    for (int i = 0; i < text.size(); i++) {
      for (int j = 0; j < text.get(i).length(); j++) {
        ids[i * len + j] = 1 + text.get(i).charAt(j) % (VOCAB - 1);
        mask[i * len + j] = 1;
      }
    }
    Map<String, Tensor> encoding = new LinkedHashMap<>();
    encoding.put("input_ids", Tensor.of(ids, text.size(), len));
    encoding.put("attention_mask", Tensor.of(mask, text.size(), len));
    return encoding;
  }

  /** {@code BatchEncoding.to(device)}. */
  static Map<String, Tensor> to(Map<String, Tensor> encoding, Device device) {
    Map<String, Tensor> moved = new LinkedHashMap<>();
    encoding.forEach((k, v) -> moved.put(k, v.to(device)));
    return moved;
  }

  static double[] train(BertForSequenceClassification model, List<Map<String, Object>> dataloader, AdamW optimizer,
      CrossEntropyLoss criterion, Device device) {
    model.train();
    double epochLoss = 0;
    double epochAcc = 0;
    for (Map<String, Object> batch : dataloader) {
      Tensor label = (Tensor) batch.get("label"); // bug: across-methods
      @SuppressWarnings("unchecked")
      List<String> text = (List<String>) batch.get("text");
      Map<String, Tensor> tokenizedText = to(tokenizer(text), device);
      optimizer.zeroGrad();
      Tensor[] output = model.forward(tokenizedText.get("input_ids"), tokenizedText.get("attention_mask"), label);
      Tensor yPredProb = output[1];
      Tensor yPredLabel = yPredProb.argmax(1);
      Tensor loss = criterion.forward(yPredProb.view(-1, 2), label.view(-1));
      double acc = yPredLabel.eq(label.view(-1)).sum().item(); // costs time: HostSyncInLoop
      loss.backward();
      optimizer.step();
      epochLoss += loss.item(); // costs time: HostSyncInLoop
      epochAcc += acc;
    }
    return new double[] {epochLoss / dataloader.size(), epochAcc};
  }

  static double[] evaluate(BertForSequenceClassification model, List<Map<String, Object>> iterator, Device device) {
    model.eval();
    double epochLoss = 0;
    double epochAcc = 0;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Map<String, Object> batch : iterator) {
        Tensor label = (Tensor) batch.get("label"); // bug: across-methods
        @SuppressWarnings("unchecked")
        List<String> text = (List<String>) batch.get("text");
        Map<String, Tensor> tokenizedText = to(tokenizer(text), device);
        Tensor[] output = model.forward(tokenizedText.get("input_ids"), tokenizedText.get("attention_mask"), label);
        epochLoss += output[0].item(); // costs time: HostSyncInLoop
        epochAcc += output[1].argmax(1).eq(label.view(-1)).sum().item(); // costs time: HostSyncInLoop
      }
    }
    return new double[] {epochLoss / iterator.size(), epochAcc};
  }

  static List<Map<String, Object>> loader(String[] texts, long[] labels, int batchSize) {
    List<Map<String, Object>> batches = new ArrayList<>();
    for (int s = 0; s < texts.length; s += batchSize) {
      int e = Math.min(s + batchSize, texts.length);
      Map<String, Object> batch = new LinkedHashMap<>();
      batch.put("label", Tensor.of(Arrays.copyOfRange(labels, s, e)));
      batch.put("text", List.of(texts).subList(s, e));
      batches.add(batch);
    }
    return batches;
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    BertForSequenceClassification model = new BertForSequenceClassification();
    model.toDevice(device);
    AdamW optimizer = new AdamW(model.parameters(), 2e-5);
    String[] texts = {"good film", "bad plot", "great acting", "boring", "loved it", "awful"};
    long[] labels = {1, 0, 1, 0, 1, 0};
    train(model, loader(texts, labels, 2), optimizer, new CrossEntropyLoss(), device);
    evaluate(model, loader(texts, labels, 3), device);
  }
}
