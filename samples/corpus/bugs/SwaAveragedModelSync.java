package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Sgd;
import java.util.List;

/**
 * {@code torch.optim.swa_utils.AveragedModel}: a copy of the model on {@code device} with an
 * {@code n_averaged} buffer; the training loop calls {@code update_parameters(model)} after every
 * optimizer step (averaging every step, as for an EMA of the weights).
 *
 * <p>Source: https://github.com/pytorch/pytorch/pull/175085
 *
 * <p>Bug: {@code update_parameters} tests the device buffer on the host, {@code copy_param =
 * bool(self.n_averaged == 0)} and {@code if self.n_averaged > 0:}: a CPU/GPU synchronization on
 * every call ("each update_parameter call is reduced to 6ms from 333ms" once a CPU-side counter is
 * used instead).
 *
 * <p>Outcome: completes (costs time)
 */
public final class SwaAveragedModelSync {
  private SwaAveragedModelSync() {}

  static final class Net extends Model {
    final Linear fc1 = new Linear(8, 16);
    final Linear fc2 = new Linear(16, 3);

    Tensor forward(Tensor x) {
      return fc2.forward(fc1.forward(x).relu());
    }
  }

  static final class AveragedModel extends Model {
    final Net module = new Net();
    @Buffer Tensor nAveraged;

    AveragedModel(Net model, Device device) {
      module.loadStateDict(model.stateDict(), true);   // deepcopy(model)
      module.toDevice(device);
      nAveraged = Tensor.zeros(Shape.scalar(), DType.INT64, device);
    }

    void updateParameters(Net model) {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        List<Parameter> selfParam = parameters();
        List<Parameter> modelParam = model.parameters();
        boolean copyParam = nAveraged.eq(0).itemAsBoolean(); // bug: across-methods
        Tensor[] modelParamDetached = new Tensor[selfParam.size()];
        for (int i = 0; i < selfParam.size(); i++) {
          Parameter pAveraged = selfParam.get(i);
          modelParamDetached[i] = modelParam.get(i).detach().to(pAveraged.device());
          if (copyParam) {
            pAveraged.detach().copyFrom(modelParamDetached[i]);
          }
        }
        if (nAveraged.gt(0).itemAsBoolean()) { // bug: across-methods
          for (int i = 0; i < selfParam.size(); i++) {
            Tensor pAveraged = selfParam.get(i).detach();
            Tensor n = nAveraged.to(pAveraged.device());
            pAveraged.copyFrom(pAveraged.add(modelParamDetached[i].sub(pAveraged).div(n.add(1))));
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
    AveragedModel swaModel = new AveragedModel(model, device);
    Sgd optimizer = new Sgd(model.parameters(), 0.05);
    CrossEntropyLoss lossFn = new CrossEntropyLoss();
    TensorDataset data = new TensorDataset(Tensor.randn(16, 8), Tensor.randint(0, 3, Shape.of(16)));
    DataLoader loader = DataLoader.builder(data).batchSize(4).shuffle(0).build();
    for (int epoch = 0; epoch < 2; epoch++) {
      for (Batch b : loader) {
        Tensor input = b.inputs().to(device);
        Tensor target = b.targets().to(device);
        optimizer.zeroGrad();
        lossFn.forward(model.forward(input), target).backward();
        optimizer.step();
        swaModel.updateParameters(model);
      }
    }
  }
}
