package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Trains a classifier and keeps an exponential moving average of its weights in a copy of the
 * model (timm's ModelEmaV3), asked to live on the CPU to save GPU memory ({@code device='cpu'}).
 *
 * <p>Source: https://github.com/huggingface/pytorch-image-models/issues/2127
 *
 * <p>Bug: with {@code device='cpu'} the non-foreach path of {@code apply_update_} called
 * {@code ema_v.lerp_(model_v, weight=1. - decay)} without moving {@code model_v} (on cuda:0) to the
 * EMA's device, so the update mixed cpu and cuda:0 tensors.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class TimmEmaV3CpuDeviceLerp {
  private TimmEmaV3CpuDeviceLerp() {}

  /** The trained model. */
  static final class Net extends Model {
    final Linear fc1 = new Linear(8, 16);
    final Linear fc2 = new Linear(16, 3);

    Tensor forward(Tensor x) {
      return fc2.forward(fc1.forward(x).relu());
    }
  }

  /** ModelEmaV3: a copy of the model whose state is a moving average of the model's. */
  static final class ModelEmaV3 extends Model {
    final Net module;
    final double decay;
    final Device emaDevice;
    boolean foreach = true;

    ModelEmaV3(Net model, double decay, Device emaDevice) {
      module = new Net();                                  // deepcopy(model)
      module.loadStateDict(model.stateDict(), true);
      module.eval();
      this.decay = decay;
      this.emaDevice = emaDevice;
      if (emaDevice != null && !emaDevice.equals(model.device())) {
        foreach = false;                                   // cannot use foreach methods with different devices
        module.toDevice(emaDevice);
      }
    }

    void update(Net model) {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        List<Tensor> emaValues = new ArrayList<>(module.stateDict().values());
        List<Tensor> modelValues = new ArrayList<>(model.stateDict().values());
        if (foreach) {
          for (int i = 0; i < emaValues.size(); i++) {
            emaValues.get(i).muli(decay).addi(modelValues.get(i), 1. - decay);
          }
        } else {
          for (int i = 0; i < emaValues.size(); i++) {
            Tensor emaV = emaValues.get(i);
            Tensor modelV = modelValues.get(i);
            emaV.muli(decay).addi(modelV, 1. - decay);    // bug: training-state
          }
        }
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Net model = new Net();
    model.toDevice(device);
    ModelEmaV3 ema = new ModelEmaV3(model, 0.998, Device.cpu());
    Sgd optimizer = new Sgd(model.parameters(), 0.1);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    TensorDataset data = new TensorDataset(Tensor.randn(32, 8, Device.cpu()),
        Tensor.randint(0, 3, dev.ondevice.Shape.of(32)));
    DataLoader loader = DataLoader.builder(data).batchSize(8).build();
    for (Batch b : loader) {
      Tensor x = b.inputs().to(device);
      Tensor y = b.targets().to(device);
      optimizer.zeroGrad();
      Tensor loss = criterion.forward(model.forward(x), y);
      loss.backward();
      optimizer.step();
      ema.update(model);
    }
  }
}
