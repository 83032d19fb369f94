package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The "What is torch.nn really?" tutorial in its final form: {@code preprocess(x, y)} reshapes the
 * flat MNIST images and moves both tensors to {@code dev}; {@code WrappedDataLoader} applies it to
 * every batch a {@code DataLoader} yields; the model is an {@code nn.Sequential} of convolutions
 * ending in a {@code Lambda} layer, moved with {@code model.to(dev)}; {@code fit} trains with
 * {@code loss_batch} (which returns {@code loss.item(), len(xb)}) and averages the validation
 * losses weighted by batch size.
 *
 * <p>Source: https://github.com/pytorch/tutorials/blob/05e7ce2c19e72d482475d91d458db210cdacec38/beginner_source/nn_tutorial.py
 *
 * <p>Ported: preprocess, WrappedDataLoader, Lambda, get_data, loss_batch, fit and the GPU section
 * as written ({@code F.cross_entropy}, SGD with momentum 0.9). Left out: the earlier, hand-written
 * versions of the model and loop, and the MNIST download (random images); {@code
 * nn.AdaptiveAvgPool2d(1)} is a Lambda taking the mean over the spatial dimensions, which is what
 * it computes.
 *
 * <p>Outcome: completes
 */
public final class TutorialsNnWrappedDataLoader {
  private TutorialsNnWrappedDataLoader() {}

  static Device dev;

  static final class Lambda extends Layer {
    final Function<Tensor, Tensor> func;

    Lambda(Function<Tensor, Tensor> func) {
      this.func = func;
    }

    @Override
    public Tensor forward(Tensor x) {
      return func.apply(x);
    }
  }

  static Tensor[] preprocess(Tensor x, Tensor y) {
    return new Tensor[] {x.view(-1, 1, 28, 28).to(dev), y.to(dev)};
  }

  static final class WrappedDataLoader implements Iterable<Tensor[]> {
    final DataLoader dl;
    final BiFunction<Tensor, Tensor, Tensor[]> func;

    WrappedDataLoader(DataLoader dl, BiFunction<Tensor, Tensor, Tensor[]> func) {
      this.dl = dl;
      this.func = func;
    }

    int size() {
      return dl.numBatches();
    }

    @Override
    public Iterator<Tensor[]> iterator() {
      Iterator<Batch> batches = dl.iterator();
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return batches.hasNext();
        }

        @Override
        public Tensor[] next() {
          Batch b = batches.next();
          return func.apply(b.inputs(), b.targets());
        }
      };
    }
  }

  static DataLoader[] getData(TensorDataset trainDs, TensorDataset validDs, int bs) {
    return new DataLoader[] {
        DataLoader.builder(trainDs).batchSize(bs).shuffle(0).build(),
        DataLoader.builder(validDs).batchSize(bs * 2).build()};
  }

  static double[] lossBatch(Layer model, CrossEntropyLoss lossFunc, Tensor xb, Tensor yb, Sgd opt) {
    Tensor loss = lossFunc.forward(model.forward(xb), yb);
    if (opt != null) {
      loss.backward();
      opt.step();
      opt.zeroGrad();
    }
    return new double[] {loss.item(), xb.size(0)}; // costs time: HostSyncInLoop
  }

  static void fit(int epochs, Layer model, CrossEntropyLoss lossFunc, Sgd opt, WrappedDataLoader trainDl,
      WrappedDataLoader validDl) {
    for (int epoch = 0; epoch < epochs; epoch++) {
      model.train();
      for (Tensor[] b : trainDl) {
        lossBatch(model, lossFunc, b[0], b[1], opt);
      }
      model.eval();
      List<double[]> results = new ArrayList<>();
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        for (Tensor[] b : validDl) {
          results.add(lossBatch(model, lossFunc, b[0], b[1], null));
        }
      }
      double weighted = 0;
      double nums = 0;
      for (double[] r : results) {
        weighted += r[0] * r[1];
        nums += r[1];
      }
      System.out.println(epoch + " " + weighted / nums);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    dev = device;
    int bs = 16;
    double lr = 0.1;
    int epochs = 2;
    TensorDataset trainDs = new TensorDataset(Tensor.rand(Shape.of(64, 784)), Tensor.randint(0, 10, Shape.of(64)));
    TensorDataset validDs = new TensorDataset(Tensor.rand(Shape.of(32, 784)), Tensor.randint(0, 10, Shape.of(32)));
    CrossEntropyLoss lossFunc = new CrossEntropyLoss();

    DataLoader[] dls = getData(trainDs, validDs, bs);
    WrappedDataLoader trainDl = new WrappedDataLoader(dls[0], TutorialsNnWrappedDataLoader::preprocess);
    WrappedDataLoader validDl = new WrappedDataLoader(dls[1], TutorialsNnWrappedDataLoader::preprocess);

    Sequential model = new Sequential(
        new Conv2d(1, 16, 3, 2, 1, true),
        new ReLU(),
        new Conv2d(16, 16, 3, 2, 1, true),
        new ReLU(),
        new Conv2d(16, 10, 3, 2, 1, true),
        new ReLU(),
        new Lambda(x -> x.mean(new int[] {2, 3}, true)),
        new Lambda(x -> x.view(x.size(0), -1)));
    model.toDevice(dev);
    Sgd opt = new Sgd(model.parameters(), lr).momentum(0.9);
    fit(epochs, model, lossFunc, opt, trainDl, validDl);
  }
}
