package corpus.bugs;

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
 * Liger-Kernel's fused linear cross entropy, as the patched causal-LM forward uses it: the model's
 * {@code forward} hands the last hidden states and the {@code lm_head} weight to {@code
 * LigerFusedLinearCrossEntropyLoss}, whose {@code fused_linear_cross_entropy_forward} (in
 * {@code ops/fused_linear_cross_entropy.py}) counts the non-ignored targets, then runs the
 * projection and the cross entropy chunk by chunk so that the full logits never exist at once,
 * dividing each chunk's loss by that count for the mean reduction.
 *
 * <p>Source: https://github.com/linkedin/Liger-Kernel/pull/1292 (the code:
 * https://github.com/linkedin/Liger-Kernel/blob/00eba634c2e9b5f05badbfb67e9b0a4caba301a2/src/liger_kernel/ops/fused_linear_cross_entropy.py)
 *
 * <p>Bug: {@code total_n_non_ignore = target_mask.sum().item()} (marked "TODO: evaluate how CUDA
 * synchronization caused by .item() affects the speed") pulls the count off the GPU before the
 * first chunk is launched, a device-to-host sync inside the model's forward on every training step;
 * the PR keeps the count as a 0-dim device tensor.
 *
 * <p>Outcome: completes (costs time)
 */
public final class LigerFusedLinearCrossEntropyItemSync {
  private LigerFusedLinearCrossEntropyItemSync() {}

  /** ops/fused_linear_cross_entropy.py, with the Triton kernel's per-row loss written as tensor ops. */
  static final class FusedLinearCrossEntropyOps {
    private FusedLinearCrossEntropyOps() {}

    static long cdiv(long a, long b) {
      return (a + b - 1) / b;
    }

    static long nextPowerOf2(long n) {
      long p = 1;
      while (p < n) {
        p <<= 1;
      }
      return p;
    }

    static Tensor fusedLinearCrossEntropyForward(Tensor input, Tensor weight, Tensor target, Tensor bias,
        long ignoreIndex, String reduction) {
      long bt = input.size(0);
      long h = input.size(1);
      long v = weight.size(0);
      long incFactor = cdiv(v, h);
      long chunkSize = nextPowerOf2(cdiv(bt, incFactor));
      chunkSize = Math.min(chunkSize, bt);
      long numChunks = cdiv(bt, chunkSize);

      Tensor targetMask = target.ne(ignoreIndex);
      double totalNNonIgnore = targetMask.sum().item(); // bug: per-step

      List<Tensor> loss1d = new ArrayList<>();
      for (long chunkId = 0; chunkId < numChunks; chunkId++) {
        long startIdx = chunkId * chunkSize;
        long endIdx = Math.min((chunkId + 1) * chunkSize, bt);
        Tensor inputChunk = input.slice(0, startIdx, endIdx);
        Tensor logitsChunk = inputChunk.matmul(weight.t());
        if (bias != null) {
          logitsChunk = logitsChunk.add(bias);
        }
        Tensor targetChunk = target.slice(0, startIdx, endIdx);
        Tensor maskChunk = targetMask.slice(0, startIdx, endIdx);
        Tensor safeTarget = Tensor.where(maskChunk, targetChunk, Tensor.zerosLike(targetChunk));
        Tensor lossChunk = logitsChunk.logSoftmax(1).gather(1, safeTarget.unsqueeze(1)).squeeze(1).neg()
            .mul(maskChunk.to(DType.FLOAT32));
        if (reduction.equals("mean")) {
          lossChunk = lossChunk.div(totalNNonIgnore);
        }
        loss1d.add(lossChunk);
      }
      Tensor loss = Tensor.cat(loss1d);
      return reduction.equals("none") ? loss : loss.sum();
    }
  }

  /** transformers/fused_linear_cross_entropy.py: a module with no state of its own. */
  static final class LigerFusedLinearCrossEntropyLoss extends Model {
    final long ignoreIndex;
    final String reduction;

    LigerFusedLinearCrossEntropyLoss(long ignoreIndex, String reduction) {
      this.ignoreIndex = ignoreIndex;
      this.reduction = reduction;
    }

    Tensor forward(Tensor linWeight, Tensor input, Tensor target, Tensor bias) {
      return FusedLinearCrossEntropyOps.fusedLinearCrossEntropyForward(input, linWeight, target, bias, ignoreIndex,
          reduction);
    }
  }

  /** A causal LM whose forward is patched the way Liger's {@code lce_forward} does it. */
  static final class CausalLm extends Model {
    final Embedding embedTokens;
    final Linear mlpUp;
    final Linear mlpDown;
    final LayerNorm norm;
    final Linear lmHead;
    final LigerFusedLinearCrossEntropyLoss lossFct = new LigerFusedLinearCrossEntropyLoss(-100, "mean");
    final int hiddenSize;

    CausalLm(int vocabSize, int hiddenSize) {
      this.hiddenSize = hiddenSize;
      embedTokens = new Embedding(vocabSize, hiddenSize);
      mlpUp = new Linear(hiddenSize, 4 * hiddenSize);
      mlpDown = new Linear(4 * hiddenSize, hiddenSize);
      norm = new LayerNorm(hiddenSize);
      lmHead = new Linear(hiddenSize, vocabSize, false, Device.cpu());
    }

    Tensor forward(Tensor inputIds, Tensor labels) {
      Tensor hiddenStates = embedTokens.forward(inputIds);
      hiddenStates = hiddenStates.add(mlpDown.forward(mlpUp.forward(hiddenStates).relu()));
      hiddenStates = norm.forward(hiddenStates);
      long t = hiddenStates.size(1);
      Tensor shiftHiddenStates = hiddenStates.slice(1, 0, t - 1).contiguous().view(-1, hiddenSize);
      Tensor shiftLabels = labels.slice(1, 1, t).contiguous().view(-1);
      return lossFct.forward(lmHead.weight(), shiftHiddenStates, shiftLabels, null);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    CausalLm model = new CausalLm(64, 16);
    model.toDevice(device);
    AdamW optimizer = new AdamW(model.parameters(), 1e-3);
    for (int step = 0; step < 4; step++) {
      Tensor inputIds = Tensor.randint(0, 64, Shape.of(2, 12), device);
      Tensor pad = Tensor.rand(Shape.of(2, 12), device).lt(0.2);
      Tensor labels = Tensor.where(pad, Tensor.fullLike(inputIds, -100), inputIds);
      Tensor loss = model.forward(inputIds, labels);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
  }
}
