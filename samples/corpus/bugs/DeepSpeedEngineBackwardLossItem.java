package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.AdamW;

/**
 * DeepSpeed's training engine: the user's loop calls {@code loss = engine(batch)},
 * {@code engine.backward(loss)} and {@code engine.step()} for every micro-batch; the engine scales
 * the loss by the gradient-accumulation steps, keeps the training loss for the monitor
 * (TensorBoard), runs backward, and steps the optimizer at each accumulation boundary.
 *
 * <p>Source: https://github.com/deepspeedai/DeepSpeed/pull/5135 (commit fac1df9)
 *
 * <p>Bug: {@code DeepSpeedEngine.backward} logs the training loss with
 * {@code self.losses += loss.mean().item()} on every micro-batch, a host synchronisation per step
 * even when no monitor is enabled. The fix accumulates {@code loss.mean().detach()} on the device and
 * calls {@code item()} only when the monitor writes its event.
 *
 * <p>Outcome: completes (costs time)
 */
public final class DeepSpeedEngineBackwardLossItem {
  private DeepSpeedEngineBackwardLossItem() {}

  /** A user model that returns its loss, as DeepSpeed examples do. */
  static final class Net extends Model {
    final Sequential body = new Sequential(new Linear(16, 32), new ReLU(), new Linear(32, 4));
    final CrossEntropyLoss criterion = new CrossEntropyLoss();

    Tensor forward(Tensor x, Tensor y) {
      return criterion.forward(body.forward(x), y);
    }
  }

  /** {@code deepspeed.runtime.engine.DeepSpeedEngine}, reduced to the plain (no ZeRO, no fp16) path. */
  static final class DeepSpeedEngine extends Model {
    final Net module;
    final AdamW optimizer;
    final int gradientAccumulationSteps;
    final boolean monitorEnabled;
    double losses = 0.0;
    int microSteps = 0;
    int globalSteps = 0;
    int globalSamples = 0;

    DeepSpeedEngine(Net module, AdamW optimizer, int gradientAccumulationSteps, boolean monitorEnabled) {
      this.module = module;
      this.optimizer = optimizer;
      this.gradientAccumulationSteps = gradientAccumulationSteps;
      this.monitorEnabled = monitorEnabled;
    }

    Tensor forward(Tensor x, Tensor y) {
      return module.forward(x, y);
    }

    boolean isGradientAccumulationBoundary() {
      return (microSteps + 1) % gradientAccumulationSteps == 0;
    }

    void backward(Tensor loss) {
      // scale loss w.r.t. gradient accumulation if needed
      if (gradientAccumulationSteps > 1) {
        loss = loss.div(gradientAccumulationSteps);
      }
      // Log training loss
      losses += loss.mean().item(); // bug: per-step
      if (monitorEnabled && isGradientAccumulationBoundary()) {
        System.out.printf("Train/Samples/train_loss %.4f at %d%n", losses, globalSamples);
      }
      loss.backward();
    }

    void step() {
      if (isGradientAccumulationBoundary()) {
        optimizer.step();
        optimizer.zeroGrad();
        losses = 0.0;
        globalSteps++;
        globalSamples += 8 * gradientAccumulationSteps;
      }
      microSteps++;
    }
  }

  public static void run(Device device) {
    Net net = new Net();
    net.toDevice(device);
    AdamW optimizer = new AdamW(net.parameters(), 1e-3);
    DeepSpeedEngine engine = new DeepSpeedEngine(net, optimizer, 2, false);
    for (int step = 0; step < 8; step++) {
      Tensor x = Tensor.randn(Shape.of(8, 16), device);
      Tensor y = Tensor.randint(0, 4, Shape.of(8), device);
      Tensor loss = engine.forward(x, y);
      engine.backward(loss);
      engine.step();
    }
    System.out.println("global steps " + engine.globalSteps);
  }
}
