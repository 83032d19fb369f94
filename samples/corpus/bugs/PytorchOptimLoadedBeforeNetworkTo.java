package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Sgd;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Resuming training: the network and its SGD optimizer are created, the saved state is loaded onto
 * the CPU ({@code map_location=lambda storage, loc: storage}) into both, and then the network is
 * sent to the GPU for the rest of the training.
 *
 * <p>Source: https://github.com/pytorch/pytorch/issues/8741
 *
 * <p>Bug: {@code optim.load_state_dict(state['optim'])} ran while the parameters were still on the
 * CPU, so the momentum buffers were restored there; {@code network.to(torch.device('cuda'))} moved
 * the parameters but not the optimizer state, and the next {@code optim.step()} mixed CPU state and
 * CUDA parameters ("expects torch.FloatTensor but got torch.cuda.FloatTensor").
 *
 * <p>Outcome: throws IllegalStateException
 */
public final class PytorchOptimLoadedBeforeNetworkTo {
  private PytorchOptimLoadedBeforeNetworkTo() {}

  static final class Network extends Model {
    final Linear fc1 = new Linear(10, 20);
    final Linear fc2 = new Linear(20, 3);

    Tensor forward(Tensor x) {
      return fc2.forward(fc1.forward(x).relu());
    }
  }

  static void trainSteps(Network network, Sgd optim, Device device, int steps) {
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    for (int i = 0; i < steps; i++) {
      Tensor x = Tensor.randn(8, 10, device);
      Tensor y = Tensor.randint(0, 3, dev.ondevice.Shape.of(8), device);
      optim.zeroGrad();
      criterion.forward(network.forward(x), y).backward();
      optim.step();
    }
  }

  /** Runs the program with small random data: a first session on the CPU, the resumed one on {@code device}. */
  public static void run(Device device) throws Exception {
    Path filePath = Files.createTempDirectory("resume").resolve("state.safetensors");
    {   // the earlier session, which saved network and optimizer
      Network network = new Network();
      Sgd optim = new Sgd(network.parameters(), 0.1).momentum(0.9);
      trainSteps(network, optim, Device.cpu(), 2);
      Checkpoint.save(filePath, network, optim);
    }

    Network network = new Network();
    Sgd optim = new Sgd(network.parameters(), 0.1).momentum(0.9);
    Checkpoint state = Checkpoint.load(filePath, MapLocation.to(Device.cpu()));   // send all tensors to CPU
    network.loadStateDict(state.stateDict(), true);
    optim.loadStateDict(state.optimizerState().orElseThrow()); // bug: training-state
    network.toDevice(device);                                      // network.to(torch.device('cuda'))
    trainSteps(network, optim, device, 2);
  }
}
