package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Sgd;

/**
 * yatengLG's {@code focal_loss(alpha, gamma, num_classes)}: a loss object holding the class
 * weights {@code alpha} (made on the CPU in {@code __init__}, a plain attribute, not a buffer),
 * used as the criterion of a classifier trained on the GPU. Its {@code forward} moves a copy of
 * alpha to the predictions' device for the weighting.
 *
 * <p>Source: https://github.com/yatengLG/Focal-Loss-Pytorch/issues/17
 *
 * <p>Bug: after {@code alpha = self.alpha.to(preds.device)}, the next line gathers from the field
 * again, {@code alpha = self.alpha.gather(0, labels.view(-1))}: the CPU weights are indexed with
 * the GPU labels ("Expected object of backend CPU but got backend CUDA for argument #3 'index'").
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class FocalLossPytorchAlphaGather {
  private FocalLossPytorchAlphaGather() {}

  static final class FocalLoss {
    final Tensor alpha;
    final double gamma;
    final boolean sizeAverage;

    /** {@code alpha} a constant: {@code [alpha, 1-alpha, 1-alpha, ...]}, as for a background class. */
    FocalLoss(double alpha, double gamma, int numClasses, boolean sizeAverage) {
      float[] a = new float[numClasses];
      a[0] = (float) alpha;
      for (int i = 1; i < numClasses; i++) {
        a[i] = (float) (1 - alpha);
      }
      this.alpha = Tensor.of(a);
      this.gamma = gamma;
      this.sizeAverage = sizeAverage;
    }

    Tensor forward(Tensor preds, Tensor labels) {
      preds = preds.view(-1, preds.size(-1));
      Tensor alpha = this.alpha.to(preds.device());
      Tensor predsLogsoft = preds.logSoftmax(1);
      Tensor predsSoftmax = predsLogsoft.exp();
      predsSoftmax = predsSoftmax.gather(1, labels.view(-1, 1));
      predsLogsoft = predsLogsoft.gather(1, labels.view(-1, 1));
      alpha = this.alpha.gather(0, labels.view(-1)); // bug: training-state
      Tensor loss = predsSoftmax.rsub(1).pow(gamma).mul(predsLogsoft).neg();
      loss = alpha.mul(loss.t());
      return sizeAverage ? loss.mean() : loss.sum();
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Sequential model = new Sequential(new Flatten(), new Linear(12, 16), new ReLU(), new Linear(16, 3));
    model.toDevice(device);
    FocalLoss lossFn = new FocalLoss(0.25, 2, 3, true);
    Sgd optimizer = new Sgd(model.parameters(), 0.01).momentum(0.9);
    TensorDataset data = new TensorDataset(Tensor.randn(12, 12), Tensor.randint(0, 3, Shape.of(12)));
    for (Batch b : DataLoader.builder(data).batchSize(4).shuffle(0).build()) {
      Tensor x = b.inputs().to(device);
      Tensor y = b.targets().to(device);
      Tensor loss = lossFn.forward(model.forward(x), y);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
  }
}
