package corpus.correct;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Generator;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MaxPool2d;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.NllLoss;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * The imbalanced-data tutorial: per-sample weights (the reciprocal of each class count) computed
 * on the host feed a WeightedRandomSampler whose indices, drawn on the CPU, select the batches;
 * each batch is then moved to the device, data and target.
 *
 * <p>Source: https://github.com/pytorch/tutorials/blob/37bfb4d2e063b538cb875043393cc596b195ebae/intermediate_source/imbalanced_data_tutorial.py
 *
 * <p>Ported: the Net CNN, train(epoch) with {@code data.to(device)} and {@code target.to(device)},
 * NLLLoss and SGD with momentum, the class counts and {@code samples_weights = weights[train_targets]}
 * as a CPU float64 tensor, and WeightedRandomSampler(replacement=True) driving the batches. The
 * API has no sampler argument on its DataLoader nor {@code torch.multinomial}: the sampler is a
 * plain class drawing with replacement by inverse CDF from CPU uniforms, and the loop gathers each
 * batch with {@code dataset.getBatch(indices)} as a DataLoader with a sampler does. Left out:
 * CIFAR10 and its resampling (small random images with an imbalanced label set), plots, the
 * weighted-criterion part, and evaluate(), which in this version runs {@code model(data)} on
 * test batches it never moves to the device.
 *
 * <p>Outcome: completes
 */
public final class ImbalancedDataWeightedRandomSampler {
  private ImbalancedDataWeightedRandomSampler() {}

  static final class Net extends Model {
    final Conv2d conv1 = new Conv2d(3, 6, 5);
    final MaxPool2d pool = new MaxPool2d(2);
    final Conv2d conv2 = new Conv2d(6, 16, 5);
    final Linear fc1 = new Linear(16 * 5 * 5, 120);
    final Linear fc2 = new Linear(120, 84);
    final Linear fc3 = new Linear(84, 10);

    Tensor forward(Tensor x) {
      x = pool.forward(conv1.forward(x).relu());
      x = pool.forward(conv2.forward(x).relu());
      x = x.view(-1, 16 * 5 * 5);
      x = fc1.forward(x).relu();
      x = fc2.forward(x).relu();
      return fc3.forward(x).logSoftmax(1);
    }
  }

  /** torch.utils.data.WeightedRandomSampler with replacement, on CPU weights. */
  static final class WeightedRandomSampler implements Iterable<Integer> {
    final Tensor weights;
    final int numSamples;
    final Generator generator = new Generator(2809);

    WeightedRandomSampler(Tensor weights, int numSamples) {
      this.weights = weights;
      this.numSamples = numSamples;
    }

    @Override
    public Iterator<Integer> iterator() {
      double[] cdf = weights.toDoubleArray();
      for (int i = 1; i < cdf.length; i++) {
        cdf[i] += cdf[i - 1];
      }
      double[] u = Tensor.rand(Shape.of(numSamples), DType.FLOAT64, Device.cpu(), generator).toDoubleArray();
      List<Integer> draws = new ArrayList<>();
      for (double v : u) {
        int pos = Arrays.binarySearch(cdf, v * cdf[cdf.length - 1]);
        draws.add(Math.min(pos >= 0 ? pos : -pos - 1, cdf.length - 1));
      }
      return draws.iterator();
    }
  }

  static void train(int epoch, Net model, TensorDataset dataset, WeightedRandomSampler sampler, int batchSize,
      Sgd optimizer, NllLoss criterion, Device device) {
    model.train();
    double runningLoss = 0.0;
    List<Integer> indices = new ArrayList<>();
    sampler.forEach(indices::add);
    for (int start = 0, batchIdx = 0; start < indices.size(); start += batchSize, batchIdx++) {
      int[] batchIndices = indices.subList(start, Math.min(start + batchSize, indices.size()))
          .stream().mapToInt(Integer::intValue).toArray();
      Batch batch = dataset.getBatch(batchIndices);
      Tensor data = batch.inputs().to(device);
      Tensor target = batch.targets().to(device);
      optimizer.zeroGrad();
      Tensor output = model.forward(data);
      Tensor loss = criterion.forward(output, target);
      loss.backward();
      optimizer.step();
      runningLoss += loss.item();  // costs time: HostSyncInLoop
      if (batchIdx % 2 == 0) {
        System.out.printf("[%d, %d] loss: %.3f%n", epoch + 1, batchIdx + 1, runningLoss / 2);
        runningLoss = 0.0;
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    long[] labels = new long[64];
    for (int i = 0; i < labels.length; i++) {
      labels[i] = i < 10 ? i % 5 : 5 + i % 5;
    }
    Tensor trainTargets = Tensor.of(labels);
    TensorDataset trainDataset = new TensorDataset(Tensor.randn(Shape.of(labels.length, 3, 32, 32)), trainTargets);
    double[] classCounts = new double[10];
    for (long label : labels) {
      classCounts[(int) label]++;
    }
    double[] weights = Arrays.stream(classCounts).map(c -> 1.0 / c).toArray();
    Tensor samplesWeights = Tensor.of(weights).indexSelect(0, trainTargets);
    WeightedRandomSampler sampler = new WeightedRandomSampler(samplesWeights, (int) samplesWeights.size(0));
    Net model = new Net();
    model.toDevice(device);
    Sgd optimizer = new Sgd(model.parameters(), 1e-3).momentum(0.9);
    NllLoss criterion = new NllLoss();
    for (int epoch = 0; epoch < 1; epoch++) {
      train(epoch, model, trainDataset, sampler, 16, optimizer, criterion, device);
    }
  }
}
