package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.util.ArrayList;
import java.util.List;

/**
 * SpecForge's offline EAGLE-3 draft model: the forward pass unrolls the draft model for
 * {@code length} test-time-training (TTT) steps; each step projects the hidden states, computes
 * the draft logits, records an accuracy metric with the module-level helper
 * {@code _compute_metric_acc}, and returns one loss per step. The training script weights the
 * step losses by {@code 0.8**i} and logs them.
 *
 * <p>Source: https://github.com/sgl-project/SpecForge/pull/222
 *
 * <p>Bug: {@code _compute_metric_acc} ends in {@code .sum().item() / (loss_mask.sum().item() + 1e-6)},
 * two host reads on every TTT step of every forward pass (a device sync and a torch.compile graph
 * break each); the fix returns the ratio as a tensor ({@code loss_mask.sum().clamp_min(1e-6)}) and
 * the script reads all the accuracies at once ({@code torch.stack(acces).cpu().tolist()}).
 *
 * <p>Outcome: completes (two host syncs per TTT step)
 */
public final class SpecForgeEagle3MetricAccItem {
  private SpecForgeEagle3MetricAccItem() {}

  /** The draft model: embedding, the hidden-state projection, one backbone layer and the head. */
  static final class DraftModel extends Model {
    final Embedding embedTokens;
    final Linear fc;
    final Linear backbone;
    final Linear lmHead;

    DraftModel(int vocab, int hidden) {
      embedTokens = new Embedding(vocab, hidden);
      fc = new Linear(3 * hidden, hidden);
      backbone = new Linear(2 * hidden, hidden);
      lmHead = new Linear(hidden, vocab);
    }

    Tensor embedInputIds(Tensor inputIds) {
      return embedTokens.forward(inputIds);
    }

    Tensor projectHiddenStates(Tensor hiddenStates) {
      return fc.forward(hiddenStates);
    }

    Tensor backbone(Tensor inputEmbeds, Tensor hiddenStates) {
      return backbone.forward(Tensor.cat(List.of(inputEmbeds, hiddenStates), -1)).tanh();
    }

    Tensor computeLogits(Tensor hiddenStates) {
      return lmHead.forward(hiddenStates);
    }
  }

  static final class OfflineEagle3Model extends Model {
    final DraftModel draftModel;
    final Linear targetHead;
    final int length;

    OfflineEagle3Model(Linear targetHead, DraftModel draftModel, int length) {
      this.targetHead = targetHead;
      this.draftModel = draftModel;
      this.length = length;
    }

    /** Returns the per-step losses and accuracies (plosses, acces). */
    Object[] forward(Tensor inputIds, Tensor lossMask, Tensor target, Tensor hiddenStates) {
      long seqLength = hiddenStates.size(1);
      Tensor targetLogits = targetHead.forward(target);
      Tensor[] padded = computeTargetPPadded(targetLogits, lossMask, length);
      Tensor targetPPadded = padded[0];
      Tensor positionMask = padded[1];
      hiddenStates = draftModel.projectHiddenStates(hiddenStates);

      List<Tensor> plosses = new ArrayList<>();
      List<Double> acces = new ArrayList<>();
      for (int idx = 0; idx < length; idx++) {
        Tensor targetP = targetPPadded.slice(1, idx, idx + seqLength);
        boolean isLast = idx == length - 1;
        Tensor inputsEmbeds = draftModel.embedInputIds(inputIds);
        hiddenStates = draftModel.backbone(inputsEmbeds, hiddenStates);
        Tensor logits = draftModel.computeLogits(hiddenStates);
        try (Autograd.Scope ignored = Autograd.noGrad()) {
          acces.add(computeMetricAcc(logits, targetP, positionMask, lossMask));
        }
        // LogSoftmaxLoss: soft cross-entropy over the positions of the mask
        Tensor loss = targetP.mul(logits.logSoftmax(2)).sum(2).mul(positionMask.squeeze(-1)).sum().neg()
            .div(seqLength * inputIds.size(0));
        plosses.add(loss);
        if (!isLast) {
          inputIds = padding(inputIds);
          positionMask = padding(positionMask);
          lossMask = padding(lossMask);
        }
      }
      return new Object[] {plosses, acces};
    }
  }

  /** Shifts a tensor left by one position along dim 1, padding with zeros. */
  static Tensor padding(Tensor tensor) {
    Tensor zeros = Tensor.zerosLike(tensor.narrow(1, 0, 1));
    return Tensor.cat(List.of(tensor.slice(1, 1, tensor.size(1)), zeros), 1);
  }

  static Tensor[] computeTargetPPadded(Tensor target, Tensor lossMask, int length) {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor targetP = target.softmax(2).detach();
      Tensor positionMask = lossMask;
      Tensor pad = Tensor.fullLike(targetP.narrow(1, 0, 1), 1.0 / targetP.size(-1)).expand(targetP.size(0), length, targetP.size(2));
      return new Tensor[] {Tensor.cat(List.of(targetP, pad), 1), positionMask};
    }
  }

  static double computeMetricAcc(Tensor logits, Tensor targetP, Tensor positionMask, Tensor lossMask) {
    return logits.argmax(-1).eq(targetP.argmax(-1)).mul(positionMask.squeeze(-1)).sum().item() / (lossMask.sum().item() + 1e-6); // bug: per-step
  }

  /** Runs the program with small random data on {@code device}. */
  @SuppressWarnings("unchecked")
  public static void run(Device device) throws Exception {
    int vocab = 32, hidden = 16, batch = 2, seq = 6, ttt = 3, accumulation = 1;
    OfflineEagle3Model eagle3Model = new OfflineEagle3Model(new Linear(hidden, vocab), new DraftModel(vocab, hidden), ttt);
    eagle3Model.toDevice(device);
    AdamW optimizer = new AdamW(eagle3Model.draftModel.parameters(), 1e-4);
    TensorDataset dataset = new TensorDataset(Tensor.randint(0, vocab, Shape.of(6, seq)), Tensor.ones(Shape.of(6, seq)),
        Tensor.randn(Shape.of(6, seq, 3L * hidden)), Tensor.randn(Shape.of(6, seq, hidden)));
    DataLoader trainDataloader = DataLoader.builder(dataset).batchSize(batch).shuffle(0).build();
    int batchIndex = 0;
    for (Batch data : trainDataloader) {
      batchIndex++;
      Object[] out = eagle3Model.forward(data.tensor(0).to(device), data.tensor(1).unsqueeze(-1).to(device),
          data.tensor(3).to(device), data.tensor(2).to(device));
      List<Tensor> plosses = (List<Tensor>) out[0];
      List<Double> acces = (List<Double>) out[1];
      Tensor ploss = Tensor.zeros(Shape.scalar(), device);
      for (int i = 0; i < plosses.size(); i++) {
        ploss = ploss.add(plosses.get(i).mul(Math.pow(0.8, i)));
      }
      ploss = ploss.div(accumulation);
      optimizer.zeroGrad();
      ploss.backward();
      optimizer.step();
      double[] logLosses = new double[plosses.size()];
      for (int i = 0; i < plosses.size(); i++) {
        logLosses[i] += plosses.get(i).item() / accumulation; // costs time: HostSyncInLoop
      }
      System.out.printf("step %d ploss_0 %.4f acc_0 %.3f%n", batchIndex, logLosses[0], acces.get(0));
    }
  }
}
