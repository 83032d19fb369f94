package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;

/**
 * A return-prediction regressor trained with a custom loss module, {@code AvgReturnTop10Loss},
 * that weights the squared errors by a per-sample penalty factor.
 *
 * <p>Source: https://github.com/Lightning-AI/pytorch-lightning/issues/17299
 *
 * <p>Bug: the loss's {@code forward} creates {@code penalty_factor = torch.ones(y_pred.size(0))}
 * without a device; {@code penalty_factor * errors} fails once the predictions are on CUDA. (The
 * reported code's {@code torch.topk} call, whose indices it never uses, is left out.)
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class LightningCustomLossOnesOnCpu {
  private LightningCustomLossOnesOnCpu() {}

  /** The custom loss, an nn.Module without state. */
  static final class AvgReturnTop10Loss extends Model {
    final double alpha;

    AvgReturnTop10Loss(double alpha) {
      this.alpha = alpha;
    }

    Tensor forward(Tensor yPred, Tensor yTrue) {
      Tensor errors = yTrue.sub(yPred).pow(2);
      Tensor penaltyFactor = Tensor.ones(Shape.of(yPred.size(0))); // bug: in-method
      Tensor weightedErrors = penaltyFactor.mul(errors);
      return weightedErrors.abs().mean();
    }
  }

  /** The regressor. */
  static final class Regressor extends Layer {
    final Linear fc1 = new Linear(6, 16);
    final Linear fc2 = new Linear(16, 1);

    @Override
    public Tensor forward(Tensor x) {
      return fc2.forward(fc1.forward(x).relu()).squeeze(1);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Regressor model = new Regressor();
    model.toDevice(device);
    AvgReturnTop10Loss criterion = new AvgReturnTop10Loss(5);
    Adam optimizer = new Adam(model.parameters(), 1e-3);
    DataLoader loader =
        DataLoader.builder(new TensorDataset(Tensor.randn(40, 6), Tensor.randn(40))).batchSize(20).build();
    for (Batch batch : loader) {
      Tensor x = batch.inputs().to(device);
      Tensor y = batch.targets().to(device);
      Tensor loss = criterion.forward(model.forward(x), y);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
  }
}
