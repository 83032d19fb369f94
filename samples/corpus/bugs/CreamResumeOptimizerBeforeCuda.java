package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.OptimizerState;
import dev.ondevice.optim.Sgd;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Cream's supernet training script with AUTO_RESUME: the checkpoint restores the model's weights
 * (mapped to the CPU) and returns the optimizer state; the optimizer is created and loaded, then the
 * model is moved to this process's GPU and training continues.
 *
 * <p>Source: https://github.com/microsoft/Cream/issues/2
 *
 * <p>Bug: in tools/train.py {@code optimizer.load_state_dict(optimizer_state['optimizer'])} ran
 * before {@code model = model.cuda()}, so the loaded SGD momentum buffers were cast to the
 * parameters' device at load time, the CPU, and {@code optimizer.step()} failed once the
 * parameters were on cuda:N.
 *
 * <p>Outcome: throws IllegalStateException
 */
public final class CreamResumeOptimizerBeforeCuda {
  private CreamResumeOptimizerBeforeCuda() {}

  static final class Supernet extends Model {
    final Linear stem = new Linear(12, 24);
    final Linear classifier = new Linear(24, 5);

    Tensor forward(Tensor x) {
      return classifier.forward(stem.forward(x).relu());
    }
  }

  static Sgd createOptimizerSupernet(Supernet model) {
    return new Sgd(model.parameters(), 0.05).momentum(0.9).weightDecay(1e-4);
  }

  /** timm's resume_checkpoint: loads the weights into the model, returns the optimizer state. */
  static OptimizerState resumeCheckpoint(Supernet model, Path path) throws Exception {
    Checkpoint checkpoint = Checkpoint.load(path, MapLocation.to(Device.cpu()));
    model.loadStateDict(checkpoint.stateDict(), true);
    return checkpoint.optimizerState().orElseThrow();
  }

  static void trainEpoch(Supernet model, DataLoader loader, Sgd optimizer, Device device) {
    CrossEntropyLoss lossFn = new CrossEntropyLoss();
    for (Batch b : loader) {
      Tensor input = b.inputs().to(device);
      Tensor target = b.targets().to(device);
      Tensor loss = lossFn.forward(model.forward(input), target);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    TensorDataset data = new TensorDataset(Tensor.randn(32, 12, Device.cpu()),
        Tensor.randint(0, 5, Shape.of(32)));
    DataLoader loader = DataLoader.builder(data).batchSize(8).shuffle(0).build();
    Path dir = Files.createTempDirectory("cream");
    Path resumePath = dir.resolve("checkpoint-0.safetensors");
    {   // an earlier run that wrote the checkpoint
      Supernet earlier = new Supernet();
      earlier.toDevice(device);
      Sgd earlierOptimizer = createOptimizerSupernet(earlier);
      trainEpoch(earlier, loader, earlierOptimizer, device);
      Checkpoint.save(resumePath, earlier, earlierOptimizer);
    }

    Supernet model = new Supernet();
    OptimizerState optimizerState = resumeCheckpoint(model, resumePath);    // cfg.AUTO_RESUME
    Sgd optimizer = createOptimizerSupernet(model);
    optimizer.loadStateDict(optimizerState); // bug: training-state
    model.toDevice(device);                                   // model = model.cuda()
    trainEpoch(model, loader, optimizer, device);
  }
}
