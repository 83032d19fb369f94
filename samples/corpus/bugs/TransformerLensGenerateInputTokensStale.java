package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.ArrayList;
import java.util.List;

/**
 * Greedy generation with TransformerLens's {@code HookedTransformer.generate()} from a token
 * tensor built by hand on the CPU (a tokenizer-free, algorithmic-task model whose config device is
 * CUDA): generate moves the input to the model's device, embeds it, appends one argmax token per
 * step and returns the prompt followed by the generated tokens.
 *
 * <p>Source: https://github.com/TransformerLensOrg/TransformerLens/issues/1508
 *
 * <p>Bug: {@code input_tokens} is bound to the original input before {@code input =
 * input.to(device)}, so it keeps pointing at the CPU tensor; the final
 * {@code torch.cat((input_tokens, sampled_tokens), dim=1)} mixes it with tokens sampled on CUDA.
 * (KV cache, attention mask, end-of-sequence handling and the attention blocks are left out.)
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class TransformerLensGenerateInputTokensStale {
  private TransformerLensGenerateInputTokensStale() {}

  /** A one-layer stand-in for HookedTransformer. */
  static final class HookedTransformer extends Model {
    final Embedding embed;
    final Embedding posEmbed;
    final Linear mlp;
    final Linear unembed;

    HookedTransformer(int vocab, int nCtx, int dModel) {
      embed = new Embedding(vocab, dModel);
      posEmbed = new Embedding(nCtx, dModel);
      mlp = new Linear(dModel, dModel);
      unembed = new Linear(dModel, vocab);
    }

    Tensor forward(Tensor embeds) {
      Tensor positions = Tensor.arange(embeds.size(1), embeds.device());
      Tensor residual = embeds.add(posEmbed.forward(positions));
      residual = residual.add(mlp.forward(residual).relu());
      return unembed.forward(residual);
    }

    Tensor generate(Tensor input, int maxNewTokens) {
      Tensor inputTokens = input; // bug: in-method
      Device device = device(); // devices.get_device_for_block_index(0, self.cfg)
      input = input.to(device);
      Tensor embeds = embed.forward(input);
      List<Tensor> sampledTokensList = new ArrayList<>();
      for (int index = 0; index < maxNewTokens; index++) {
        Tensor logits = forward(embeds);
        Tensor finalLogits = logits.select(1, logits.size(1) - 1);
        Tensor sampledTokens = finalLogits.argmax(1, false).to(device);
        sampledTokensList.add(sampledTokens.unsqueeze(1));
        embeds = Tensor.cat(List.of(embeds, embed.forward(sampledTokens.unsqueeze(1))), 1);
      }
      Tensor sampledTokens = Tensor.cat(sampledTokensList, 1);
      return Tensor.cat(List.of(inputTokens, sampledTokens), 1);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    HookedTransformer model = new HookedTransformer(20, 32, 16);
    model.toDevice(device);
    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor tokens = Tensor.randint(0, 20, Shape.of(2, 5)); // hand-built prompt tokens on the CPU
      Tensor output = model.generate(tokens, 4); // same bug
      if (output.dtype() != DType.INT64 || output.size(1) != 9) {
        throw new IllegalStateException("expected 9 tokens per sequence");
      }
    }
  }
}
