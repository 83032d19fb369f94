package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.Reduction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * lmppl's {@code LM.get_perplexity(input_texts, batch_size)}: tokenizes each batch into a dict of
 * tensors, runs the causal LM on a moved copy of the dict, and computes each text's perplexity from
 * the token losses against the shifted {@code input_ids}. lmppl sets pad labels to the loss's
 * ignore index; this API's loss has none, so the pad positions are masked out of the sum instead.
 *
 * <p>Source: https://github.com/asahi417/lmppl/pull/12
 *
 * <p>Bug: the model gets {@code **{k: v.to(self.device) for k, v in model_inputs.items()}}, but the
 * labels are taken from the original dict, {@code label = model_inputs['input_ids']}, still on the
 * CPU: the loss fails with "argument target in method wrapper_CUDA_nll_loss_forward".
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class LmpplPerplexityLabels {
  private LmpplPerplexityLabels() {}

  static final int VOCAB = 30;
  static final long PAD_TOKEN_ID = 0;

  /** A stand-in for {@code AutoModelForCausalLM}: embeddings and an output head. */
  static final class CausalLm extends Model {
    final Embedding embed = new Embedding(VOCAB, 8);
    final Linear lmHead = new Linear(8, VOCAB);

    Map<String, Tensor> forward(Tensor inputIds, Tensor attentionMask) {
      Tensor h = embed.forward(inputIds).mul(attentionMask.unsqueeze(-1).to(DType.FLOAT32));
      Map<String, Tensor> output = new LinkedHashMap<>();
      output.put("logits", lmHead.forward(h));
      return output;
    }
  }

  /** {@code tokenizer(texts, padding=True, return_tensors='pt')}: CPU tensors, as Hugging Face returns them. */
  static Map<String, Tensor> tokenize(List<String> texts) {
    int maxLen = texts.stream().mapToInt(String::length).max().orElse(0);
    long[] ids = new long[texts.size() * maxLen];
    long[] mask = new long[texts.size() * maxLen];
    for (int i = 0; i < texts.size(); i++) {
      String t = texts.get(i);
      for (int j = 0; j < t.length(); j++) {
        ids[i * maxLen + j] = 1 + t.charAt(j) % (VOCAB - 1);
        mask[i * maxLen + j] = 1;
      }
    }
    Map<String, Tensor> inputs = new LinkedHashMap<>();
    inputs.put("input_ids", Tensor.of(ids, texts.size(), maxLen));
    inputs.put("attention_mask", Tensor.of(mask, texts.size(), maxLen));
    return inputs;
  }

  static final class LM {
    final CausalLm model = new CausalLm();
    final CrossEntropyLoss lossFct = new CrossEntropyLoss(Reduction.NONE);
    final Device device;

    LM(Device device) {
      model.toDevice(device);
      this.device = model.device();
      model.eval();
    }

    List<Double> getPerplexity(List<String> inputTexts, int batchSize) {
      List<Double> lossList = new ArrayList<>();
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        for (int s = 0; s < inputTexts.size(); s += batchSize) {
          Map<String, Tensor> modelInputs = tokenize(inputTexts.subList(s, Math.min(s + batchSize, inputTexts.size())));
          Map<String, Tensor> moved = new LinkedHashMap<>();
          modelInputs.forEach((k, v) -> moved.put(k, v.to(device)));
          Map<String, Tensor> output = model.forward(moved.get("input_ids"), moved.get("attention_mask"));
          Tensor logit = output.get("logits");

          Tensor label = modelInputs.get("input_ids"); // bug: held-outside-models
          Tensor shiftLogits = logit.slice(1, 0, logit.size(1) - 1).contiguous();
          Tensor shiftLabel = label.slice(1, 1, label.size(1)).contiguous();
          Tensor valid = shiftLabel.ne(PAD_TOKEN_ID);
          Tensor validLength = valid.sum(-1);
          Tensor loss = lossFct.forward(shiftLogits.view(-1, shiftLogits.size(-1)), shiftLabel.view(-1)); // same bug
          loss = loss.mul(valid.view(-1).to(DType.FLOAT32)).view(logit.size(0), -1); // same bug
          loss = loss.sum(-1).div(validLength); // same bug
          for (double v : loss.cpu().toDoubleArray()) { // costs time: HostSyncInLoop
            lossList.add(v);
          }
        }
      }
      List<Double> ppl = new ArrayList<>();
      for (double l : lossList) {
        ppl.add(Math.exp(l));
      }
      return ppl;
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    LM scorer = new LM(device);
    System.out.println(scorer.getPerplexity(List.of("sentence one", "a longer second sentence", "third"), 2));
  }
}
