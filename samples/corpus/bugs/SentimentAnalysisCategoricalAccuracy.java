package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;

/**
 * pytorch-sentiment-analysis, tutorial 5 (multi-class, TREC questions): {@code train} and {@code
 * evaluate} loops over a {@code BucketIterator} that yields batches already on {@code device}, with
 * a {@code categorical_accuracy(preds, y)} helper shared by both loops.
 *
 * <p>Source: https://github.com/bentrevett/pytorch-sentiment-analysis/issues/44
 *
 * <p>Bug: the helper returns {@code correct.sum() / torch.LongTensor([y.shape[0]])}: the
 * denominator is a one-element CPU tensor, and dividing the device count by it fails on a GPU.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class SentimentAnalysisCategoricalAccuracy {
  private SentimentAnalysisCategoricalAccuracy() {}

  /** A bag-of-embeddings stand-in for the tutorial's CNN. */
  static final class Classifier extends Model {
    final Embedding embedding = new Embedding(50, 8);
    final Linear fc = new Linear(8, 6);

    Tensor forward(Tensor text) {
      return fc.forward(embedding.forward(text).mean(1));
    }
  }

  static Tensor categoricalAccuracy(Tensor preds, Tensor y) {
    Tensor maxPreds = preds.argmax(1, true);
    Tensor correct = maxPreds.squeeze(1).eq(y);
    return correct.sum().div(Tensor.of(new long[] {y.size(0)})); // bug: across-methods
  }

  static double[] train(Classifier model, DataLoader iterator, Adam optimizer, CrossEntropyLoss criterion,
      Device device) {
    double epochLoss = 0;
    double epochAcc = 0;
    model.train();
    for (Batch b : iterator) {
      Tensor text = b.inputs().to(device);
      Tensor label = b.targets().to(device);
      optimizer.zeroGrad();
      Tensor predictions = model.forward(text);
      Tensor loss = criterion.forward(predictions, label);
      Tensor acc = categoricalAccuracy(predictions, label);
      loss.backward();
      optimizer.step();
      epochLoss += loss.item(); // costs time: HostSyncInLoop
      epochAcc += acc.item(); // costs time: HostSyncInLoop
    }
    return new double[] {epochLoss / iterator.numBatches(), epochAcc / iterator.numBatches()};
  }

  static double[] evaluate(Classifier model, DataLoader iterator, CrossEntropyLoss criterion, Device device) {
    double epochLoss = 0;
    double epochAcc = 0;
    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch b : iterator) {
        Tensor text = b.inputs().to(device);
        Tensor label = b.targets().to(device);
        Tensor predictions = model.forward(text);
        Tensor loss = criterion.forward(predictions, label);
        Tensor acc = categoricalAccuracy(predictions, label);
        epochLoss += loss.item(); // costs time: HostSyncInLoop
        epochAcc += acc.item(); // costs time: HostSyncInLoop
      }
    }
    return new double[] {epochLoss / iterator.numBatches(), epochAcc / iterator.numBatches()};
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Classifier model = new Classifier();
    Adam optimizer = new Adam(model.parameters());
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    model.toDevice(device);
    TensorDataset trainData = new TensorDataset(Tensor.randint(0, 50, Shape.of(16, 7)), Tensor.randint(0, 6, Shape.of(16)));
    TensorDataset validData = new TensorDataset(Tensor.randint(0, 50, Shape.of(8, 7)), Tensor.randint(0, 6, Shape.of(8)));
    DataLoader trainIterator = DataLoader.builder(trainData).batchSize(4).shuffle(3).build();
    DataLoader validIterator = DataLoader.builder(validData).batchSize(4).build();
    for (int epoch = 0; epoch < 1; epoch++) {
      double[] trainResult = train(model, trainIterator, optimizer, criterion, device);
      double[] validResult = evaluate(model, validIterator, criterion, device);
      System.out.printf("train acc %.2f, valid acc %.2f%n", trainResult[1], validResult[1]);
    }
  }
}
