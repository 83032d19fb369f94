package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
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
import dev.ondevice.optim.Optimizer;
import dev.ondevice.optim.Sgd;
import java.util.HashMap;
import java.util.Map;

/**
 * The reference PyTorch Lookahead wrapper: it wraps an inner optimizer and, in its constructor,
 * caches a copy of every parameter ({@code param_state['cached_params'] = torch.zeros_like(p.data)},
 * then {@code copy_(p.data)}) in its own state dict; every {@code la_steps} inner steps it
 * interpolates the fast weights towards the cached slow weights and refreshes the cache.
 *
 * <p>Source: https://github.com/michaelrzhang/lookahead/pull/8
 *
 * <p>Bug: the cache is made on the device the parameters are on when the wrapper is built; built
 * before the model moves to the GPU, {@code cached_params} stay on the CPU and the interpolation
 * {@code p.data.mul_(la_alpha).add_(param_state['cached_params'], alpha=1.0 - la_alpha)} meets a CUDA
 * parameter; the PR moves {@code param_state['cached_params']} to the parameter's device.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class LookaheadCachedParamsBeforeCuda {
  private LookaheadCachedParamsBeforeCuda() {}

  /** lookahead_pytorch.py's Lookahead, without the pullback-momentum options. */
  static final class Lookahead {
    final Optimizer optimizer;
    int laStep = 0;
    final double laAlpha;
    final int totalLaSteps;
    final Map<Parameter, Map<String, Tensor>> state = new HashMap<>();

    Lookahead(Optimizer optimizer, int laSteps, double laAlpha) {
      this.optimizer = optimizer;
      this.laAlpha = laAlpha;
      this.totalLaSteps = laSteps;
      // Cache the current optimizer parameters
      for (Parameter p : optimizer.parameters()) {
        Map<String, Tensor> paramState = state.computeIfAbsent(p, k -> new HashMap<>());
        paramState.put("cached_params", Tensor.zerosLike(p.detach()));
        paramState.get("cached_params").copyFrom(p.detach());
      }
    }

    void zeroGrad() {
      optimizer.zeroGrad();
    }

    void step() {
      optimizer.step();
      laStep += 1;
      if (laStep >= totalLaSteps) {
        laStep = 0;
        try (Autograd.Scope ignored = Autograd.noGrad()) {
          for (Parameter p : optimizer.parameters()) {
            Map<String, Tensor> paramState = state.get(p);
            p.muli(laAlpha).addi(paramState.get("cached_params"), 1.0 - laAlpha); // bug: training-state
            paramState.get("cached_params").copyFrom(p);
          }
        }
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Sequential model = new Sequential(new Flatten(), new Linear(64, 32), new ReLU(), new Linear(32, 10));
    Sgd base = new Sgd(model.parameters(), 0.1).momentum(0.9);
    Lookahead optimizer = new Lookahead(base, 5, 0.8);
    model.toDevice(device);
    TensorDataset train = new TensorDataset(Tensor.randn(Shape.of(128, 1, 8, 8)), Tensor.randint(0, 10, Shape.of(128)));
    DataLoader loader = DataLoader.builder(train).batchSize(16).shuffle(1).build();
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    Tensor total = Tensor.zeros(Shape.scalar(), device);
    for (Batch b : loader) {
      Tensor x = b.inputs().to(device);
      Tensor y = b.targets().to(device);
      optimizer.zeroGrad();
      Tensor loss = criterion.forward(model.forward(x), y);
      loss.backward();
      optimizer.step();
      total = total.add(loss.detach());
    }
    System.out.printf("loss %.4f%n", total.item() / loader.numBatches());
  }
}
