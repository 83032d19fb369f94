package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Dolly's {@code InstructionTextGenerationPipeline}: {@code preprocess} tokenizes the formatted
 * prompt into {@code input_ids} and {@code attention_mask} on the CPU, {@code _forward} hands them
 * to the causal LM's {@code generate}, which extends both by one position per generated token and
 * masks the attention to padded positions.
 *
 * <p>Source: https://github.com/databrickslabs/dolly/pull/180
 *
 * <p>Bug: {@code _forward} moves {@code input_ids} with {@code .to(self.model.device)} but passes
 * {@code attention_mask} as the tokenizer made it, on the CPU; with the model on CUDA, the mask
 * meets the attention scores inside the model's forward.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class DollyPipelineAttentionMaskOnCpu {
  private DollyPipelineAttentionMaskOnCpu() {}

  /** A one-layer causal LM with generate, standing in for the Hugging Face model. */
  static final class CausalLm extends Model {
    final Embedding wte;
    final Linear q;
    final Linear k;
    final Linear lmHead;

    CausalLm(int vocab, int dim) {
      wte = new Embedding(vocab, dim);
      q = new Linear(dim, dim);
      k = new Linear(dim, dim);
      lmHead = new Linear(dim, vocab);
    }

    Tensor forward(Tensor inputIds, Tensor attentionMask) {
      Tensor h = wte.forward(inputIds);
      Tensor scores = q.forward(h).matmul(k.forward(h).transpose(1, 2));
      Tensor keyMask = attentionMask.view(attentionMask.size(0), 1, attentionMask.size(1));
      scores = scores.maskedFill(keyMask.eq(0), -1e9);
      return lmHead.forward(scores.softmax(2).matmul(h));
    }

    /** Greedy generate: appends one token and one mask position per step. */
    Tensor generate(Tensor inputIds, Tensor attentionMask, int maxNewTokens) {
      for (int i = 0; i < maxNewTokens; i++) {
        Tensor logits = forward(inputIds, attentionMask);
        Tensor next = logits.select(1, logits.size(1) - 1).argmax(1, true);
        inputIds = Tensor.cat(List.of(inputIds, next), 1);
        attentionMask = Tensor.cat(List.of(attentionMask, Tensor.onesLike(attentionMask.narrow(1, 0, 1))), 1);
      }
      return inputIds;
    }
  }

  /** training/generate.py InstructionTextGenerationPipeline. */
  static final class InstructionTextGenerationPipeline {
    final CausalLm model;
    final int maxNewTokens;

    InstructionTextGenerationPipeline(CausalLm model, int maxNewTokens) {
      this.model = model;
      this.maxNewTokens = maxNewTokens;
    }

    /** preprocess: the tokenizer's return_tensors="pt" output, on the CPU. */
    Map<String, Tensor> preprocess(String instructionText) {
      String promptText = "Below is an instruction.\n### Instruction:\n" + instructionText + "\n### Response:\n";
      long[] ids = new long[promptText.length()];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = promptText.charAt(i) % 50;
      }
      Map<String, Tensor> inputs = new HashMap<>();
      inputs.put("input_ids", Tensor.of(ids).view(1, ids.length));
      inputs.put("attention_mask", Tensor.onesLike(inputs.get("input_ids")));
      return inputs;
    }

    Tensor forward(Map<String, Tensor> modelInputs) {
      Tensor inputIds = modelInputs.get("input_ids");
      Tensor attentionMask = modelInputs.get("attention_mask");
      return model.generate(inputIds.to(model.device()), attentionMask, maxNewTokens); // bug: across-methods
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    CausalLm model = new CausalLm(50, 16);
    model.toDevice(device);
    model.eval();
    InstructionTextGenerationPipeline pipeline = new InstructionTextGenerationPipeline(model, 4);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor generated = pipeline.forward(pipeline.preprocess("Explain what a GPU is."));
      generated.toLongArray();
    }
  }
}
