package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.AvgPool2d;
import dev.ondevice.nn.BatchNorm2d;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Loss;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.LrScheduler;
import dev.ondevice.optim.Optimizer;
import dev.ondevice.optim.Sgd;
import dev.ondevice.optim.StepLr;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The PyTorch transfer-learning tutorial's {@code train_model}: for each epoch a train and a val
 * phase, batches moved to the device, {@code torch.max(outputs, 1)} predictions, the loss summed on
 * the host with {@code loss.item() * inputs.size(0)}, the correct predictions summed as a device
 * tensor {@code running_corrects}, the best model's weights kept as a deep copy of the state dict and
 * loaded back at the end.
 *
 * <p>Source: https://github.com/pytorch/tutorials/blob/039ee0ead6a2b72669cc75bee113f8b009e86a8c/beginner_source/transfer_learning_tutorial.py
 *
 * <p>Ported: train_model as written (set_grad_enabled as a grad scope in the train phase and a
 * no-grad scope in the val phase; {@code copy.deepcopy(model.state_dict())} as a map of clones),
 * the finetuning setup (SGD with momentum 0.9, one learning rate for all parameters as this API has
 * no parameter groups, StepLR(7, 0.1), CrossEntropyLoss). The pretrained ResNet-18 is replaced by a
 * small conv net with a new final Linear; the hymenoptera images by random tensors. Left out:
 * timing, visualize_model, the fixed-feature-extractor and Co-Tuning variants.
 *
 * <p>Outcome: completes
 */
public final class TutorialsTransferLearningTrainModel {
  private TutorialsTransferLearningTrainModel() {}

  /** copy.deepcopy of a state dict: each tensor cloned where it is. */
  static Map<String, Tensor> deepCopy(Map<String, Tensor> stateDict) {
    Map<String, Tensor> copy = new LinkedHashMap<>();
    stateDict.forEach((k, v) -> copy.put(k, v.detach().clone()));
    return copy;
  }

  static Sequential trainModel(Sequential model, Loss criterion, Optimizer optimizer, LrScheduler scheduler,
      Map<String, DataLoader> dataloaders, Map<String, Integer> datasetSizes, Device device, int numEpochs) {
    Map<String, Tensor> bestModelWts = deepCopy(model.stateDict());
    double bestAcc = 0.0;

    for (int epoch = 0; epoch < numEpochs; epoch++) {
      System.out.println("Epoch " + epoch + "/" + (numEpochs - 1));
      for (String phase : new String[] {"train", "val"}) {
        if (phase.equals("train")) {
          model.train();
        } else {
          model.eval();
        }
        double runningLoss = 0.0;
        Tensor runningCorrects = Tensor.zeros(Shape.scalar(), DType.INT64, device);

        for (Batch batch : dataloaders.get(phase)) {
          Tensor inputs = batch.inputs().to(device);
          Tensor labels = batch.targets().to(device);
          optimizer.zeroGrad();
          Tensor preds;
          Tensor loss;
          try (Autograd.Scope ignored = phase.equals("train") ? Autograd.enableGrad() : Autograd.noGrad()) {
            Tensor outputs = model.forward(inputs);
            preds = outputs.max(1).indices();
            loss = criterion.forward(outputs, labels);
            if (phase.equals("train")) {
              loss.backward();
              optimizer.step();
            }
          }
          runningLoss += loss.item() * inputs.size(0); // costs time: HostSyncInLoop
          runningCorrects = runningCorrects.add(preds.eq(labels).sum());
        }
        if (phase.equals("train")) {
          scheduler.step();
        }
        double epochLoss = runningLoss / datasetSizes.get(phase);
        Tensor epochAcc = runningCorrects.to(DType.FLOAT64).div(datasetSizes.get(phase));
        double acc = epochAcc.item(); // costs time: HostSyncInLoop
        System.out.printf("%s Loss: %.4f Acc: %.4f%n", phase, epochLoss, acc);
        if (phase.equals("val") && acc > bestAcc) {
          bestAcc = acc;
          bestModelWts = deepCopy(model.stateDict());
        }
      }
    }
    System.out.printf("Best val Acc: %4f%n", bestAcc);
    // load best model weights
    model.loadStateDict(bestModelWts, true);
    return model;
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Map<String, DataLoader> dataloaders = new LinkedHashMap<>();
    Map<String, Integer> datasetSizes = new LinkedHashMap<>();
    for (String phase : new String[] {"train", "val"}) {
      int n = phase.equals("train") ? 24 : 12;
      TensorDataset ds = new TensorDataset(Tensor.randn(n, 3, 16, 16), Tensor.randint(0, 2, Shape.of(n)));
      dataloaders.put(phase, DataLoader.builder(ds).batchSize(4).shuffle(0).build());
      datasetSizes.put(phase, n);
    }
    Sequential modelFt = new Sequential(
        new Conv2d(3, 8, 3, 1, 1, false), new BatchNorm2d(8), new ReLU(),
        new AvgPool2d(16), new Flatten(), new Linear(8, 2));
    modelFt.toDevice(device);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    Sgd optimizerFt = new Sgd(modelFt.parameters(), 0.001).momentum(0.9);
    StepLr expLrScheduler = new StepLr(optimizerFt, 7, 0.1);
    trainModel(modelFt, criterion, optimizerFt, expLrScheduler, dataloaders, datasetSizes, device, 2);
  }
}
