package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.List;

/**
 * Weight averaging with {@code torch.optim.swa_utils.AveragedModel}: a copy of the model whose
 * parameters are averaged with the trained model's after every optimizer step; the number of models
 * averaged so far, {@code n_averaged}, is a buffer on the model's device.
 *
 * <p>Source: https://github.com/pytorch/pytorch/pull/157705
 *
 * <p>Bug: {@code update_parameters} tested {@code if self.n_averaged == 0:} inside the loop over the
 * parameters; with {@code n_averaged} on the GPU every test is a host synchronisation, one per
 * parameter per step (the PR moves the check out of the loop: about 22% off the update's time).
 *
 * <p>Outcome: completes (costs time)
 */
public final class TorchSwaNAveragedSyncPerParameter {
  private TorchSwaNAveragedSyncPerParameter() {}

  static final class Net extends Model {
    final Linear fc1 = new Linear(8, 32);
    final Linear fc2 = new Linear(32, 32);
    final Linear fc3 = new Linear(32, 1);

    Tensor forward(Tensor x) {
      return fc3.forward(fc2.forward(fc1.forward(x).relu()).relu());
    }
  }

  static final class AveragedModel extends Model {
    final Net module = new Net();
    @Buffer Tensor nAveraged = Tensor.zeros(Shape.scalar(), DType.INT64, Device.cpu());

    AveragedModel(Net model) {
      module.loadStateDict(model.stateDict(), true);     // deepcopy(model)
    }

    static Tensor avgFn(Tensor averagedParam, Tensor currentParam, Tensor numAveraged) {
      return averagedParam.add(currentParam.sub(averagedParam).div(numAveraged.add(1)));
    }

    void updateParameters(Net model) {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        List<Parameter> selfParam = module.parameters();
        List<Parameter> modelParam = model.parameters();
        List<Tensor> selfParamDetached = new ArrayList<>();
        List<Tensor> modelParamDetached = new ArrayList<>();
        for (int i = 0; i < selfParam.size(); i++) {
          Tensor pAveraged = selfParam.get(i);
          Tensor pModel = modelParam.get(i).detach().to(pAveraged.device());
          selfParamDetached.add(pAveraged.detach());
          modelParamDetached.add(pModel);
          if (nAveraged.eq(0).itemAsBoolean()) {                   // bug: per-step
            pAveraged.detach().copyFrom(pModel);
          }
        }
        if (nAveraged.gt(0).itemAsBoolean()) { // costs time: HostSyncInLoop
          for (int i = 0; i < selfParamDetached.size(); i++) {
            Tensor pAveraged = selfParamDetached.get(i);
            pAveraged.copyFrom(avgFn(pAveraged, modelParamDetached.get(i), nAveraged.to(pAveraged.device())));
          }
        }
        nAveraged.addi(1);
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Net model = new Net();
    model.toDevice(device);
    AveragedModel emaModel = new AveragedModel(model);
    emaModel.toDevice(device);
    Sgd optimizer = new Sgd(model.parameters(), 0.01).momentum(0.9);
    MseLoss lossFn = new MseLoss();
    for (int step = 0; step < 10; step++) {
      Tensor x = Tensor.randn(16, 8, device);
      Tensor y = Tensor.randn(16, 1, device);
      optimizer.zeroGrad();
      lossFn.forward(model.forward(x), y).backward();
      optimizer.step();
      emaModel.updateParameters(model);
    }
  }
}
