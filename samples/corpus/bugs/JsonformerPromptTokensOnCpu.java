package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Schema-guided JSON generation with Jsonformer: for each boolean property of the schema the
 * {@code Jsonformer} object tokenizes the prompt so far, runs the causal LM once and compares the
 * logits of "true" and "false" at the last position.
 *
 * <p>Source: https://github.com/1rgs/jsonformer/issues/9
 *
 * <p>Bug: {@code generate_boolean} passes {@code self.tokenizer.encode(prompt, return_tensors="pt")}
 * (a CPU tensor) straight to {@code self.model.forward(...)} while the user has put the model on
 * CUDA, so the embedding lookup inside the model fails ("when checking argument for argument index
 * in method wrapper_CUDA__index_select").
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class JsonformerPromptTokensOnCpu {
  private JsonformerPromptTokensOnCpu() {}

  /** A character-level stand-in for the Hugging Face tokenizer: encode returns a CPU tensor. */
  static final class Tokenizer {
    final int vocab;

    Tokenizer(int vocab) {
      this.vocab = vocab;
    }

    Tensor encode(String text) {
      long[] ids = new long[text.length()];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = text.charAt(i) % vocab;
      }
      return Tensor.of(ids).view(1, ids.length);
    }

    int convertTokensToIds(String token) {
      return token.charAt(0) % vocab;
    }
  }

  /** The causal LM: logits for every position. */
  static final class CausalLm extends Model {
    final Embedding wte;
    final Linear mlp;
    final Linear lmHead;

    CausalLm(int vocab, int dim) {
      wte = new Embedding(vocab, dim);
      mlp = new Linear(dim, dim);
      lmHead = new Linear(dim, vocab);
    }

    Tensor forward(Tensor inputIds) {
      Tensor h = wte.forward(inputIds);
      return lmHead.forward(h.add(mlp.forward(h).tanh()));
    }
  }

  /** jsonformer/main.py Jsonformer, booleans only. */
  static final class Jsonformer {
    final CausalLm model;
    final Tokenizer tokenizer;
    final Map<String, String> jsonSchema;
    final String prompt;
    final Map<String, Object> value = new LinkedHashMap<>();

    Jsonformer(CausalLm model, Tokenizer tokenizer, Map<String, String> jsonSchema, String prompt) {
      this.model = model;
      this.tokenizer = tokenizer;
      this.jsonSchema = jsonSchema;
      this.prompt = prompt;
    }

    String getPrompt() {
      return prompt + "\nOutput result in the following JSON schema format:\n" + jsonSchema + "\nResult: " + value;
    }

    Boolean generateBoolean() {
      String prompt = getPrompt();
      Tensor inputTensor = tokenizer.encode(prompt);
      Tensor output = model.forward(inputTensor); // bug: across-methods
      Tensor logits = output.select(0, 0).select(0, output.size(1) - 1);
      Tensor trueLogits = logits.select(0, tokenizer.convertTokensToIds("true"));
      Tensor falseLogits = logits.select(0, tokenizer.convertTokensToIds("false"));
      return trueLogits.gt(falseLogits).itemAsBoolean();
    }

    Map<String, Object> call() {
      for (Map.Entry<String, String> property : jsonSchema.entrySet()) {
        if (property.getValue().equals("boolean")) {
          value.put(property.getKey(), generateBoolean());
        }
      }
      return value;
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    CausalLm model = new CausalLm(64, 16);
    model.toDevice(device);
    Map<String, String> schema = new LinkedHashMap<>();
    schema.put("is_student", "boolean");
    schema.put("has_car", "boolean");
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Jsonformer jsonformer =
          new Jsonformer(model, new Tokenizer(64), schema, "Generate a person's information based on the schema:");
      jsonformer.call();
    }
  }
}
