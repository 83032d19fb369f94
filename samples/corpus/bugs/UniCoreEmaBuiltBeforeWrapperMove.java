package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;

/**
 * Uni-Core's Trainer: with the distributed wrapper the model is moved to the GPU only when the
 * wrapper is first built ({@code trainer.model}); the trainer also keeps an EMA of the flattened
 * fp32 parameters, updated after every optimizer step.
 *
 * <p>Source: https://github.com/dptech-corp/Uni-Core/issues/42
 *
 * <p>Bug: {@code ExponentialMovingAverageModel(model, ...)} was built in {@code Trainer.__init__}
 * from the constructor's {@code model}, before the distributed wrapper moved it, so the EMA's
 * flattened {@code param} stayed on the CPU and {@code diff = self.param - new_param} met the
 * optimizer's fp32 params on cuda:N (fixed by passing {@code self.model}).
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class UniCoreEmaBuiltBeforeWrapperMove {
  private UniCoreEmaBuiltBeforeWrapperMove() {}

  static final class Net extends Model {
    final Linear fc1 = new Linear(8, 16);
    final Linear fc2 = new Linear(16, 1);

    Tensor forward(Tensor x) {
      return fc2.forward(fc1.forward(x).relu());
    }
  }

  static Tensor flatten(List<Parameter> params) {
    List<Tensor> flat = new ArrayList<>();
    for (Parameter p : params) {
      flat.add(p.detach().flatten());
    }
    return Tensor.cat(flat);
  }

  /** unicore/ema.py */
  static final class ExponentialMovingAverageModel {
    final Net modelEma = new Net();
    final double decay;
    final Tensor param;

    ExponentialMovingAverageModel(Net model, double decay) {
      modelEma.loadStateDict(model.stateDict(), true);    // deepcopy(model).float()
      this.decay = decay;
      this.param = flatten(modelEma.parameters());         // flatten_parameters(model)
    }

    void update(Tensor newParam) {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        Tensor diff = param.sub(newParam);
        diff.muli(1 - decay);
        param.subi(diff);
      }
    }
  }

  static final class Trainer {
    final Device device;
    final boolean useDistributedWrapper;
    final Net modelArg;
    Net wrappedModel;
    Adam optimizer;
    final ExponentialMovingAverageModel ema;

    Trainer(Net model, Device device, boolean useDistributedWrapper) {
      this.device = device;
      this.useDistributedWrapper = useDistributedWrapper;
      this.modelArg = model;
      if (!useDistributedWrapper) {
        model.toDevice(device);      // the DistributedUnicoreModel wrapper will handle moving to device
      }
      this.ema = new ExponentialMovingAverageModel(model, 0.999); // bug: training-state
    }

    Net model() {
      if (wrappedModel == null) {
        if (useDistributedWrapper) {
          modelArg.toDevice(device);   // models.DistributedUnicoreModel(args, self._model, device=self.device)
        }
        wrappedModel = modelArg;
      }
      return wrappedModel;
    }

    void trainStep(Tensor x, Tensor y) {
      if (optimizer == null) {
        optimizer = new Adam(model().parameters(), 1e-3);
      }
      optimizer.zeroGrad();
      new MseLoss().forward(model().forward(x), y).backward();
      optimizer.step();
      ema.update(flatten(optimizer.parameters()));         // self.ema.update(self.optimizer.fp32_params)
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Trainer trainer = new Trainer(new Net(), device, true);
    for (int i = 0; i < 3; i++) {
      trainer.trainStep(Tensor.randn(4, 8, device), Tensor.randn(4, 1, device));
    }
  }
}
