package corpus.bugs;

import dev.ondevice.Autograd;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * opendataval's (then dataoob's) Data Out-of-Bag valuation: the evaluator bags {@code num_models}
 * copies of a prediction model, each fitted on a bootstrap sample; it collects every model's
 * predictions on its out-of-bag points in {@code self.oob_pred}, a tensor field of the evaluator
 * that grows with {@code torch.cat}, and scores each training point by how well its out-of-bag
 * predictions match its label.
 *
 * <p>Source: https://github.com/opendataval/opendataval/commit/352f9537083aff840880ac332f9f10fe52c0339c
 * ("OOB bug fix with different tensor devices")
 *
 * <p>Bug: {@code input_data} creates the accumulator {@code self.oob_pred} on {@code
 * y_train.device} (the CPU), while the prediction model, trained on the GPU, returns CUDA
 * predictions: {@code torch.cat((self.oob_pred, y_hat))} mixes devices. The fix keeps the
 * accumulator on the CPU and moves each prediction there ({@code predict(...).cpu()}).
 *
 * <p>Ported: the prediction model is a small MLP classifier with opendataval's {@code fit}/{@code
 * predict}/{@code clone} interface; {@code Subset} indexing is {@code indexSelect}; the metric is
 * accuracy.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class DataOobPredAccumulatorOnCpu {
  private DataOobPredAccumulatorOnCpu() {}

  /** The prediction model: an MLP classifier that trains and predicts on its device. */
  static final class ClassifierMlp extends Model {
    final int inputDim;
    final int numClasses;
    final Device device;
    final Linear fc1;
    final Linear fc2;

    ClassifierMlp(int inputDim, int numClasses, Device device) {
      this.inputDim = inputDim;
      this.numClasses = numClasses;
      this.device = device;
      this.fc1 = new Linear(inputDim, 16);
      this.fc2 = new Linear(16, numClasses);
      toDevice(device);
    }

    Tensor forward(Tensor x) {
      return fc2.forward(fc1.forward(x).relu()).softmax(-1);
    }

    ClassifierMlp cloneModel() {
      return new ClassifierMlp(inputDim, numClasses, device);
    }

    void fit(Tensor xTrain, Tensor yTrain, int batchSize, int epochs) {
      Adam optimizer = new Adam(parameters(), 1e-2);
      CrossEntropyLoss criterion = new CrossEntropyLoss();
      DataLoader loader = DataLoader.builder(new TensorDataset(xTrain, yTrain)).batchSize(batchSize).shuffle(0).build();
      train();
      for (int epoch = 0; epoch < epochs; epoch++) {
        for (Batch batch : loader) {
          Tensor x = batch.inputs().to(device);
          Tensor y = batch.targets().to(device);
          optimizer.zeroGrad();
          Tensor logits = fc2.forward(fc1.forward(x).relu());
          Tensor loss = criterion.forward(logits, y.argmax(1));
          loss.backward();
          optimizer.step();
        }
      }
    }

    Tensor predict(Tensor x) {
      eval();
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        return forward(x.to(device));
      }
    }
  }

  static final class DataOob {
    final int numModels;
    final double proportion;
    final Random randomState;
    ClassifierMlp predModel;
    Tensor xTrain;
    Tensor yTrain;
    int numPoints;
    int maxSamples;
    Device device;
    Tensor oobPred;
    final Map<Integer, List<Integer>> oobIndices = new LinkedHashMap<>();
    int position;

    DataOob(int numModels, double proportion, long seed) {
      this.numModels = numModels;
      this.proportion = proportion;
      this.randomState = new Random(seed);
    }

    DataOob inputModel(ClassifierMlp predModel) {
      this.predModel = predModel.cloneModel();
      return this;
    }

    DataOob inputData(Tensor xTrain, Tensor yTrain) {
      this.xTrain = xTrain;
      this.yTrain = yTrain;
      this.numPoints = (int) xTrain.size(0);
      this.maxSamples = (int) Math.round(proportion * numPoints);
      this.device = yTrain.device();
      this.oobPred = Tensor.zeros(Shape.of(0, yTrain.size(1)), device);
      return this;
    }

    DataOob trainDataValues(int batchSize, int epochs) {
      for (int i = 0; i < numModels; i++) {
        int[] counts = new int[numPoints];
        long[] inBag = new long[maxSamples];
        for (int s = 0; s < maxSamples; s++) {
          inBag[s] = randomState.nextInt(numPoints);
          counts[(int) inBag[s]]++;
        }
        List<Integer> outBagList = new ArrayList<>();
        for (int p = 0; p < numPoints; p++) {
          if (counts[p] == 0) {
            outBagList.add(p);
          }
        }
        if (outBagList.isEmpty()) {
          continue;
        }
        long[] outBag = outBagList.stream().mapToLong(Integer::longValue).toArray();

        ClassifierMlp currModel = predModel.cloneModel();
        Tensor inIdx = Tensor.of(inBag);
        currModel.fit(xTrain.indexSelect(0, inIdx), yTrain.indexSelect(0, inIdx), batchSize, epochs);

        Tensor yHat = currModel.predict(xTrain.indexSelect(0, Tensor.of(outBag))); // bug: held-outside-models
        oobPred = Tensor.cat(List.of(oobPred, yHat), 0); // same bug
        for (int p : outBagList) {
          oobIndices.computeIfAbsent(p, k -> new ArrayList<>()).add(position++);
        }
      }
      return this;
    }

    double evaluate(Tensor y, Tensor yHat) {
      if (!y.device().equals(yHat.device())) {
        y = y.to(yHat.device());
      }
      return yHat.argmax(1).eq(y.argmax(1)).to(dev.ondevice.DType.FLOAT32).mean().item();
    }

    double[] evaluateDataValues() {
      double[] dataValues = new double[numPoints];
      for (Map.Entry<Integer, List<Integer>> e : oobIndices.entrySet()) {
        int i = e.getKey();
        long[] indices = e.getValue().stream().mapToLong(Integer::longValue).toArray();
        Tensor oobLabels = yTrain.select(0, i).unsqueeze(0).expand(indices.length, yTrain.size(1));
        dataValues[i] = evaluate(oobLabels, oobPred.indexSelect(0, Tensor.of(indices).to(oobPred.device())));
      }
      return dataValues;
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Tensor x = Tensor.randn(Shape.of(40, 5));
    Tensor labels = x.select(1, 0).gt(0).to(dev.ondevice.DType.INT64);
    Tensor y = Tensor.oneHot(labels, 2).to(dev.ondevice.DType.FLOAT32);
    DataOob dataval = new DataOob(3, 1.0, 0).inputModel(new ClassifierMlp(5, 2, device)).inputData(x, y);
    double[] values = dataval.trainDataValues(10, 2).evaluateDataValues();
    System.out.println("value of point 0: " + values[0]);
  }
}
