package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Sgd;

/**
 * Kindle's {@code TorchTrainer}: a trainer class holding the model, criterion, optimizer and
 * device, with {@code train(train_dataloader, n_epoch, test_dataloader)} and {@code
 * test(test_dataloader)} loops that log the running loss and accuracy.
 *
 * <p>Source: https://github.com/JeiKeiLim/kindle/pull/4
 *
 * <p>Bug: both loops call {@code self.model(data.to(self.device))} but pass the unmoved {@code
 * labels} to {@code self.criterion(model_out, labels)}: the loss fails on a GPU.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class KindleTrainerLabels {
  private KindleTrainerLabels() {}

  static final class TorchTrainer {
    final Sequential model;
    final CrossEntropyLoss criterion;
    final Sgd optimizer;
    final Device device;

    TorchTrainer(Sequential model, CrossEntropyLoss criterion, Sgd optimizer, Device device) {
      this.model = model;
      this.criterion = criterion;
      this.optimizer = optimizer;
      this.device = device;
    }

    double[] train(DataLoader trainDataloader, int nEpoch, DataLoader testDataloader) {
      double averageLoss = -1.0;
      double accuracy = -1.0;
      int nBatch = trainDataloader.numBatches();
      for (int epoch = 0; epoch < nEpoch; epoch++) {
        double runningLoss = 0.0;
        long correct = 0;
        long total = 0;
        for (Batch b : trainDataloader) {
          Tensor data = b.inputs();
          Tensor labels = b.targets();
          optimizer.zeroGrad();
          Tensor modelOut = model.forward(data.to(device));
          Tensor loss = criterion.forward(modelOut, labels); // bug: in-method
          loss.backward();
          optimizer.step();
          Tensor predicted = modelOut.max(1).indices();
          total += labels.size(0);
          correct += predicted.eq(labels).sum().itemAsLong(); // same bug // costs time: HostSyncInLoop
          runningLoss += loss.item(); // costs time: HostSyncInLoop
        }
        if (testDataloader != null) {
          test(testDataloader);
        }
        averageLoss = runningLoss / nBatch;
        accuracy = (double) correct / total;
      }
      return new double[] {averageLoss, accuracy};
    }

    double[] test(DataLoader testDataloader) {
      int nBatch = testDataloader.numBatches();
      double runningLoss = 0.0;
      long correct = 0;
      long total = 0;
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        for (Batch b : testDataloader) {
          Tensor data = b.inputs();
          Tensor labels = b.targets();
          Tensor modelOut = model.forward(data.to(device));
          runningLoss += criterion.forward(modelOut, labels).item(); // bug: in-method
          Tensor predicted = modelOut.max(1).indices();
          total += labels.size(0);
          correct += predicted.eq(labels).sum().itemAsLong(); // same bug // costs time: HostSyncInLoop
        }
      }
      return new double[] {runningLoss / nBatch, (double) correct / total};
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Sequential model = new Sequential(new Flatten(), new Linear(3 * 4 * 4, 16), new ReLU(), new Linear(16, 10));
    model.toDevice(device);
    TorchTrainer trainer = new TorchTrainer(model, new CrossEntropyLoss(), new Sgd(model.parameters(), 0.01), device);
    TensorDataset train = new TensorDataset(Tensor.randn(16, 3, 4, 4), Tensor.randint(0, 10, Shape.of(16)));
    TensorDataset test = new TensorDataset(Tensor.randn(8, 3, 4, 4), Tensor.randint(0, 10, Shape.of(8)));
    trainer.train(DataLoader.builder(train).batchSize(4).shuffle(1).build(), 1,
        DataLoader.builder(test).batchSize(4).build());
  }
}
