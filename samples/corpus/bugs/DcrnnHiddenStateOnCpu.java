package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.List;

/**
 * A diffusion-convolutional GRU cell (PyTorch Geometric Temporal's DCRNN) run over node features
 * without an initial hidden state, so the cell makes one itself.
 *
 * <p>Source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/18
 *
 * <p>Bug: {@code _set_hidden_state} returns {@code torch.zeros(X.shape[0], self.out_channels)} on
 * the default device when no {@code H} is passed; the update gate's {@code torch.cat([X, H])} then
 * meets a CUDA {@code X} ("All input tensors must be on the same device").
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class DcrnnHiddenStateOnCpu {
  private DcrnnHiddenStateOnCpu() {}

  /** The recurrent cell; the diffusion convolutions are stood in for by linear maps of [X, H]. */
  static final class Dcrnn extends Model {
    final int outChannels;
    final Linear convXZ;
    final Linear convXR;
    final Linear convXH;

    Dcrnn(int inChannels, int outChannels) {
      this.outChannels = outChannels;
      convXZ = new Linear(inChannels + outChannels, outChannels);
      convXR = new Linear(inChannels + outChannels, outChannels);
      convXH = new Linear(inChannels + outChannels, outChannels);
    }

    Tensor setHiddenState(Tensor x, Tensor h) {
      if (h == null) {
        h = Tensor.zeros(x.size(0), outChannels); // bug: across-methods
      }
      return h;
    }

    Tensor calculateUpdateGate(Tensor x, Tensor h) {
      Tensor z = Tensor.cat(List.of(x, h), 1); // same bug
      return convXZ.forward(z).sigmoid();
    }

    Tensor calculateResetGate(Tensor x, Tensor h) {
      Tensor r = Tensor.cat(List.of(x, h), 1);
      return convXR.forward(r).sigmoid();
    }

    Tensor calculateCandidateState(Tensor x, Tensor h, Tensor r) {
      Tensor hTilde = Tensor.cat(List.of(x, h.mul(r)), 1);
      return convXH.forward(hTilde).tanh();
    }

    Tensor forward(Tensor x, Tensor h) {
      h = setHiddenState(x, h);
      Tensor z = calculateUpdateGate(x, h);
      Tensor r = calculateResetGate(x, h);
      Tensor hTilde = calculateCandidateState(x, h, r);
      return z.mul(h).add(z.rsub(1).mul(hTilde));
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Dcrnn recurrent = new Dcrnn(4, 8);
    recurrent.toDevice(device);
    Tensor x = Tensor.randn(10, 4, device); // 10 nodes, 4 features each
    Tensor h = recurrent.forward(x, null);
    h.sum().item();
  }
}
