package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.util.List;

/**
 * FluxGAT's {@code model/FluxGAT.py}: for each k-fold split of a metabolic graph, the graph and a
 * new model are moved to the device, a positive-class weight is computed from the label counts and
 * given to {@code BCEWithLogitsLoss(pos_weight=weight)}, and {@code train(model, data, optimizer,
 * criterion)} runs for each epoch.
 *
 * <p>Source: https://github.com/kierensharma/FluxGAT/pull/4 (commit 477a833)
 *
 * <p>Bug: {@code weight = torch.tensor([number_of_zeros / number_of_ones])} is a one-element CPU
 * tensor; the criterion (never moved) weighs the CUDA logits with it. The fix creates it with {@code
 * device=device}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class FluxGatPosWeightOnCpu {
  private FluxGatPosWeightOnCpu() {}

  /** A PyG {@code Data}: features, dense normalized adjacency, labels and the split as index tensors. */
  record Data(Tensor x, Tensor adj, Tensor y, Tensor trainIdx, Tensor testIdx) {
    Data to(Device device) {
      return new Data(x.to(device), adj.to(device), y.to(device), trainIdx.to(device), testIdx.to(device));
    }
  }

  /** {@code torch.nn.BCEWithLogitsLoss(pos_weight=...)}: a module holding its weight as a buffer. */
  static final class BceWithLogitsLoss extends Model {
    @Buffer Tensor posWeight;

    BceWithLogitsLoss(Tensor posWeight) {
      this.posWeight = posWeight;
    }

    /** {@code (1 - y) * x + (1 + (pw - 1) * y) * softplus(-x)}, averaged. */
    Tensor forward(Tensor input, Tensor target) {
      Tensor logWeight = posWeight.sub(1).mul(target).add(1); // same bug
      Tensor softplusNeg = input.neg().relu().add(input.abs().neg().exp().log1p());
      return target.rsub(1).mul(input).add(logWeight.mul(softplusNeg)).mean();
    }
  }

  /** FluxGAT with the two GAT layers replaced by dense graph convolutions over {@code adj}. */
  static final class FluxGat extends Model {
    final Embedding embedding;
    final Linear conv1;
    final LayerNorm ln1;
    final Linear hidden;
    final Linear fc;

    FluxGat(int numFeatures, int embeddingDim, int hiddenChannels, int heads) {
      embedding = new Embedding(numFeatures, embeddingDim);
      conv1 = new Linear(embeddingDim, hiddenChannels * heads);
      ln1 = new LayerNorm(hiddenChannels * heads);
      hidden = new Linear(hiddenChannels * heads, hiddenChannels * heads);
      fc = new Linear(hiddenChannels * heads, 1);
    }

    Tensor forward(Data data) {
      Tensor x = embedding.forward(data.x().argmax(1));
      x = ln1.forward(data.adj().matmul(conv1.forward(x)));
      x = x.maximum(x.mul(0.01));
      x = data.adj().matmul(hidden.forward(x));
      return fc.forward(x.maximum(x.mul(0.01))).squeeze(-1);
    }
  }

  static double[] train(FluxGat model, Data data, AdamW optimizer, BceWithLogitsLoss criterion) {
    model.train();
    optimizer.zeroGrad();
    Tensor out = model.forward(data);
    Tensor loss = criterion.forward(out.indexSelect(0, data.trainIdx()), data.y().indexSelect(0, data.trainIdx()).to(DType.FLOAT32));
    loss.backward();
    optimizer.step();
    Tensor pred = out.indexSelect(0, data.trainIdx()).sigmoid().gt(0.65);
    double acc = pred.eq(data.y().indexSelect(0, data.trainIdx())).sum().item() / data.trainIdx().size(0); // costs time: HostSyncInLoop
    return new double[] {loss.item(), acc}; // costs time: HostSyncInLoop
  }

  static Data makeFold(int fold) {
    int n = 12;
    Tensor adj = Tensor.rand(Shape.of(n, n)).gt(0.6).to(DType.FLOAT32).add(Tensor.eye(n));
    adj = adj.div(adj.sum(1, true));
    long[] labels = new long[n];
    for (int i = 0; i < n; i++) {
      labels[i] = (i + fold) % 3 == 0 ? 1 : 0;
    }
    long[] train = {0, 1, 2, 3, 4, 5, 6, 7};
    long[] test = {8, 9, 10, 11};
    return new Data(Tensor.rand(Shape.of(n, 5)), adj, Tensor.of(labels), Tensor.of(train), Tensor.of(test));
  }

  public static void run(Device device) {
    int numEpochs = 3;
    for (int fold = 0; fold < 2; fold++) {
      Data data = makeFold(fold).to(device);
      FluxGat model = new FluxGat((int) data.x().size(1), 16, 8, 2);
      model.toDevice(device);
      AdamW optimizer = new AdamW(model.parameters(), 0.001).weightDecay(0.01);

      Tensor numberOfZeros = data.y().eq(0).sum();
      Tensor numberOfOnes = data.y().eq(1).sum();
      Tensor weight = Tensor.of(new float[] {(float) (numberOfZeros.item() / numberOfOnes.item())}); // bug: training-state
      BceWithLogitsLoss criterion = new BceWithLogitsLoss(weight); // same bug

      for (int epoch = 0; epoch < numEpochs; epoch++) {
        double[] lossAcc = train(model, data, optimizer, criterion); // same bug
        System.out.printf("Epoch %d: Train Loss: %.4f, Train Accuracy: %.4f%n", epoch + 1, lossAcc[0], lossAcc[1]);
      }
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        model.eval();
        Tensor pred = model.forward(data).indexSelect(0, data.testIdx()).sigmoid().gt(0.65);
        double acc = pred.eq(data.y().indexSelect(0, data.testIdx())).sum().item() / data.testIdx().size(0);
        System.out.printf("Test Accuracy: %.4f%n", acc);
      }
    }
  }
}
