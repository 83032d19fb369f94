package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import dev.ondevice.optim.CosineAnnealingLr;
import dev.ondevice.optim.OptimizerState;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * IAGNet's {@code train.py}: the model, criteria, Adam optimizer and cosine schedule are built on
 * the CPU; with {@code --resume} the checkpoint is loaded with {@code map_location='cuda:0'}, the
 * model and the optimizer load their states, and only then {@code model = model.to(device)} runs,
 * before the training epochs.
 *
 * <p>Source: https://github.com/yyvhang/IAGNet/issues/4
 *
 * <p>Bug: {@code optimizer.load_state_dict(...)} casts the Adam moments to the parameters' device,
 * which is still the CPU; {@code model.to(device)} then moves the parameters but not the state, and
 * the first {@code optimizer.step()} of the resumed run mixes devices. The maintainer's fix: put
 * {@code model = model.to(device)} before loading the checkpoint.
 *
 * <p>Outcome: throws IllegalStateException
 */
public final class IagnetResumeOptimizerBeforeModelTo {
  private IagnetResumeOptimizerBeforeModelTo() {}

  /** IAGNet reduced to its heads: a 3D affordance heatmap per point and the affordance logits. */
  static final class Iagnet extends Model {
    final Linear imgEncoder = new Linear(12, 16);
    final Linear pointEncoder = new Linear(3, 16);
    final Linear heatmap = new Linear(32, 1);
    final Linear cls = new Linear(16, 4);

    Tensor[] forward(Tensor img, Tensor point) {
      Tensor fImg = imgEncoder.forward(img).relu();                 // [B, 16]
      Tensor fPoint = pointEncoder.forward(point).relu();           // [B, N, 16]
      Tensor joint = Tensor.cat(java.util.List.of(fPoint, fImg.unsqueeze(1).expand(fPoint.size(0), fPoint.size(1), 16)), -1);
      Tensor out3d = heatmap.forward(joint).sigmoid();              // [B, N, 1]
      Tensor logits = cls.forward(fImg);
      return new Tensor[] {out3d, logits, fImg.logSoftmax(-1), fPoint.mean(1).softmax(-1)};
    }
  }

  /** {@code utils/loss.py HM_Loss}: focal BCE plus dice on the heatmap. */
  static final class HmLoss {
    Tensor forward(Tensor pred, Tensor target) {
      Tensor bce = target.mul(pred.add(1e-6).log()).add(target.rsub(1).mul(pred.rsub(1).add(1e-6).log())).neg();
      Tensor focal = pred.sub(target).abs().pow(2).mul(bce).mean();
      Tensor inter = pred.mul(target).sum();
      Tensor dice = inter.mul(2).add(1e-6).div(pred.sum().add(target.sum()).add(1e-6)).rsub(1);
      return focal.add(dice);
    }
  }

  static Tensor klDiv(Tensor logP, Tensor q) {
    return q.mul(q.add(1e-8).log().sub(logP)).sum(-1).mean();
  }

  static void trainEpochs(Iagnet model, Adam optimizer, CosineAnnealingLr scheduler, int startEpoch, int epochs,
      DataLoader trainLoader, Device device) {
    HmLoss criterionHm = new HmLoss();
    CrossEntropyLoss criterionCe = new CrossEntropyLoss();
    for (int epoch = startEpoch + 1; epoch < epochs; epoch++) {
      System.out.println("Epoch:" + epoch + " strat-------");
      double lossSum = 0;
      model.train();
      for (Batch b : trainLoader) {
        optimizer.zeroGrad();
        Tensor img = b.inputs().to(device);
        Tensor point = b.targets().to(device);
        Tensor label = b.tensor(2).unsqueeze(-1).to(device);
        Tensor logitsLabel = b.tensor(3).to(device);
        Tensor[] out = model.forward(img, point);
        Tensor tempLoss = criterionHm.forward(out[0], label)
            .add(criterionCe.forward(out[1], logitsLabel).mul(0.3))
            .add(klDiv(out[2], out[3]).mul(0.5));
        tempLoss.backward();
        optimizer.step(); // same bug
        lossSum += tempLoss.item(); // costs time: HostSyncInLoop
      }
      scheduler.step();
      System.out.printf("Epoch:%d | mean_loss:%.4f%n", epoch, lossSum / trainLoader.numBatches());
    }
  }

  /** {@code torch.save(checkpoint)} then {@code torch.load(path, map_location=...)}, kept in memory. */
  record SavedCheckpoint(Map<String, Tensor> model, OptimizerState optimizer, int epoch) {
    SavedCheckpoint load(Device mapLocation) {
      Map<String, Tensor> modelState = new LinkedHashMap<>();
      model.forEach((k, v) -> modelState.put(k, v.to(mapLocation)));
      Map<String, Tensor> optimizerTensors = new LinkedHashMap<>();
      optimizer.tensors().forEach((k, v) -> optimizerTensors.put(k, v.to(mapLocation)));
      return new SavedCheckpoint(modelState, new OptimizerState(optimizerTensors, optimizer.metadata()), epoch);
    }
  }

  public static void run(Device device) throws Exception {
    TensorDataset trainDataset = new TensorDataset(Tensor.randn(8, 12), Tensor.randn(Shape.of(8, 20, 3)),
        Tensor.rand(Shape.of(8, 20)), Tensor.randint(0, 4, Shape.of(8)));
    DataLoader trainLoader = DataLoader.builder(trainDataset).batchSize(4).shuffle(1).dropLast(true).build();

    // An earlier run, with --storage: trained on the GPU, saved Epoch_1.pt
    Iagnet first = new Iagnet();
    first.toDevice(device);
    Adam firstOptimizer = new Adam(first.parameters(), 1e-4).betas(0.9, 0.999).eps(1e-8).weightDecay(1e-4);
    trainEpochs(first, firstOptimizer, new CosineAnnealingLr(firstOptimizer, 4, 1e-6), -1, 1, trainLoader, device);
    SavedCheckpoint epoch1 = new SavedCheckpoint(first.stateDict(), firstOptimizer.stateDict(), 0);

    // This run, with --resume
    Iagnet model = new Iagnet();
    Adam optimizer = new Adam(model.parameters(), 1e-4).betas(0.9, 0.999).eps(1e-8).weightDecay(1e-4);
    CosineAnnealingLr scheduler = new CosineAnnealingLr(optimizer, 4, 1e-6);
    SavedCheckpoint modelCheckpoint = epoch1.load(Device.parse("cuda:0"));
    model.loadStateDict(modelCheckpoint.model(), true);
    optimizer.loadStateDict(modelCheckpoint.optimizer()); // bug: training-state
    int startEpoch = modelCheckpoint.epoch();
    model.toDevice(device);
    trainEpochs(model, optimizer, scheduler, startEpoch, 4, trainLoader, device);
  }
}
