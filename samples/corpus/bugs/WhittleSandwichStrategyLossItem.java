package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.AdamW;
import java.util.Random;

/**
 * Super-network pretraining with whittle's sandwich strategy: each training step updates the
 * super-network, a few randomly sampled sub-networks and the smallest sub-network, and the
 * strategy returns the summed loss to the loop.
 *
 * <p>Source: https://github.com/whittle-org/whittle/issues/306
 *
 * <p>Bug: {@code SandwichStrategy.__call__} adds {@code loss.item()} to {@code total_loss} after
 * every backward, so each training step synchronises with the GPU once per sampled network.
 *
 * <p>Outcome: completes (costs time)
 */
public final class WhittleSandwichStrategyLossItem {
  private WhittleSandwichStrategyLossItem() {}

  /** A super-network whose sub-networks use the first {@code active} hidden units. */
  static final class SuperNet extends Layer {
    final int maxHidden;
    int active;
    final Linear fc1;
    final Linear fc2;

    SuperNet(int in, int maxHidden, int out) {
      this.maxHidden = maxHidden;
      this.active = maxHidden;
      fc1 = new Linear(in, maxHidden);
      fc2 = new Linear(maxHidden, out);
    }

    void selectSubNetwork(int hidden) {
      active = hidden;
    }

    void resetSuperNetwork() {
      active = maxHidden;
    }

    @Override
    public Tensor forward(Tensor x) {
      Tensor h = fc1.forward(x).relu().narrow(1, 0, active);
      return h.matmul(fc2.weight().narrow(1, 0, active).t()).add(fc2.bias());
    }
  }

  /** whittle.training_strategies.SandwichStrategy. */
  static final class SandwichStrategy {
    final int randomSamples;
    final MseLoss lossFunction = new MseLoss();
    final Random sampler = new Random(0);

    SandwichStrategy(int randomSamples) {
      this.randomSamples = randomSamples;
    }

    double call(SuperNet model, Tensor inputs, Tensor outputs) {
      double totalLoss = 0;
      Tensor yHat = model.forward(inputs);
      Tensor loss = lossFunction.forward(yHat, outputs);
      loss.backward();
      totalLoss += loss.item(); // bug: per-step
      for (int i = 0; i < randomSamples; i++) {
        model.selectSubNetwork(1 + sampler.nextInt(model.maxHidden));
        yHat = model.forward(inputs);
        loss = lossFunction.forward(yHat, outputs);
        loss.backward();
        model.resetSuperNetwork();
        totalLoss += loss.item(); // bug: per-step
      }
      model.selectSubNetwork(1);
      yHat = model.forward(inputs);
      loss = lossFunction.forward(yHat, outputs);
      loss.backward();
      model.resetSuperNetwork();
      totalLoss += loss.item(); // bug: per-step
      return totalLoss;
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    SuperNet model = new SuperNet(8, 16, 2);
    model.toDevice(device);
    AdamW optimizer = new AdamW(model.parameters(), 1e-3);
    SandwichStrategy strategy = new SandwichStrategy(2);
    DataLoader loader =
        DataLoader.builder(new TensorDataset(Tensor.randn(32, 8), Tensor.randn(32, 2))).batchSize(8).build();
    for (Batch batch : loader) {
      Tensor inputs = batch.inputs().to(device);
      Tensor outputs = batch.targets().to(device);
      optimizer.zeroGrad();
      strategy.call(model, inputs, outputs);
      optimizer.step();
    }
  }
}
