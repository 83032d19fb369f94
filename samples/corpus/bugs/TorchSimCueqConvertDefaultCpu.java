package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;

/**
 * torch-sim's {@code MaceModel} wrapper: the constructor moves the MACE model to {@code
 * self._device} and, with {@code enable_cueq=True}, replaces it by the cuEquivariance version made
 * by MACE's converter {@code run_e3nn_to_cueq(model, device="cpu")}; {@code forward} then evaluates
 * energies of the simulated system on {@code self._device}.
 *
 * <p>Source: https://github.com/TorchSim/torch-sim/issues/440 (fixed by passing the device, see
 * https://github.com/TorchSim/torch-sim/pull/391)
 *
 * <p>Bug: {@code self.model = run_e3nn_to_cueq(self.model)} omits {@code device}, so the converted
 * model is built on the converter's default CPU while the positions are on CUDA ("mat2 is on cpu,
 * different from other tensors on cuda:0"); the fix is {@code run_e3nn_to_cueq(self.model,
 * device=str(self._device))}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class TorchSimCueqConvertDefaultCpu {
  private TorchSimCueqConvertDefaultCpu() {}

  /** The e3nn MACE model, reduced to an interaction on pairwise distances and an energy readout. */
  static class MaceNet extends Model {
    final Linear interaction = new Linear(4, 16);
    final Linear readout = new Linear(16, 1);

    Tensor energy(Tensor positions) {
      Tensor diff = positions.unsqueeze(1).sub(positions.unsqueeze(0));
      Tensor dist = diff.square().sum(2).add(1e-6).sqrt();
      Tensor rbf = Tensor.stack(java.util.List.of(dist, dist.square(), dist.neg().exp(), dist.rdiv(1.0).clamp(0, 1e3)), 2);
      return readout.forward(interaction.forward(rbf).tanh()).sum();
    }
  }

  /** mace/cli/convert_e3nn_cueq.py: builds the cuEquivariance model and copies the weights in. */
  static final class ConvertE3nnCueq {
    static MaceNet run(MaceNet sourceModel) {
      return run(sourceModel, Device.cpu());
    }

    static MaceNet run(MaceNet sourceModel, Device device) {
      MaceNet targetModel = new MaceNet();
      targetModel.loadStateDict(sourceModel.stateDict(), true);
      targetModel.toDevice(device);
      return targetModel;
    }
  }

  /** torch_sim/models/mace.py */
  static final class MaceModel {
    final Device device;
    MaceNet model;

    MaceModel(MaceNet model, Device device, boolean enableCueq) {
      this.device = device;
      this.model = model;
      this.model.toDevice(device);
      if (enableCueq) {
        this.model = ConvertE3nnCueq.run(this.model); // bug: across-methods
      }
    }

    Tensor forward(Tensor positions) {
      return model.energy(positions.to(device)); // same bug
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    MaceModel mace = new MaceModel(new MaceNet(), device, true);
    Tensor positions = Tensor.rand(Shape.of(8, 3), device).mul(4);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      System.out.println("energy " + mace.forward(positions).item());
    }
  }
}
