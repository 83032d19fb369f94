package gallery.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the gallery's programs on a device with small data: the programs that fail are returned
 * with their error. Compiled against the gallery as written and as patched by Error Prone.
 */
public final class GalleryDriver {
  private GalleryDriver() {}

  private interface Program {
    void run() throws Exception;
  }

  /** The names and errors of the programs that threw on {@code device}. */
  public static List<String> run(Device device) {
    List<String> failures = new ArrayList<>();
    TensorDataset data = new TensorDataset(Tensor.randn(Shape.of(32, 1, 28, 28)), Tensor.randint(0, 10, Shape.of(32)));
    DataLoader loader = DataLoader.builder(data).batchSize(8).build();
    Layer model = new Sequential(new Flatten(), new Linear(784, 10));
    model.toDevice(device);

    check(failures, "DiscardedMoves.train", () -> DiscardedMoves.train(model, loader, device));
    check(failures, "DiscardedMoves.readBack", () -> DiscardedMoves.readBack(Tensor.randn(2, 3, device)));
    check(failures, "DiscardedMoves.Masked", () -> {
      DiscardedMoves.Masked masked = new DiscardedMoves.Masked();
      masked.toDevice(device);
      masked.forward(Tensor.randn(2, 4, device));
    });
    check(failures, "DiscardedOps.Block", () -> {
      DiscardedOps.Block block = new DiscardedOps.Block();
      block.toDevice(device);
      require(block.forward(Tensor.full(Shape.of(2, 8), -100.0, device)).min().item() >= 0, "relu applied");
    });
    check(failures, "DiscardedOps.normalize", () -> require(
        Math.abs(DiscardedOps.normalize(Tensor.randn(64, 3, device)).mean().item()) < 1e-4, "centred"));
    check(failures, "MixedDevices.addNoise", () -> MixedDevices.addNoise(Tensor.randn(4, 4), device));
    check(failures, "MixedDevices.features", () -> MixedDevices.features(device));
    check(failures, "MixedDevices.project", () -> MixedDevices.project(device, device));
    check(failures, "MixedDevices.crossGpu", MixedDevices::crossGpu);
    check(failures, "TargetsNotMoved.train", () -> TargetsNotMoved.train(model, loader, device));
    check(failures, "TargetsNotMoved.accuracy", () -> TargetsNotMoved.accuracy(model, loader, device));
    check(failures, "TargetsNotMoved.trainWithFloatTargets",
        () -> TargetsNotMoved.trainWithFloatTargets(model, loader, device));
    check(failures, "DefaultDeviceInModel.Masked", () -> {
      DefaultDeviceInModel.Masked masked = new DefaultDeviceInModel.Masked();
      masked.toDevice(device);
      masked.forward(Tensor.randn(2, 6, device));
    });
    check(failures, "DefaultDeviceInModel.Positional",
        () -> new DefaultDeviceInModel.Positional(device).forward(Tensor.randn(16, 8, device)));
    check(failures, "DefaultDeviceInModel.Noisy", () -> {
      DefaultDeviceInModel.Noisy noisy = new DefaultDeviceInModel.Noisy();
      noisy.toDevice(device);
      noisy.forward(Tensor.randn(8, 8, device));
    });
    check(failures, "DefaultDeviceInModel.Recurrent", () -> {
      DefaultDeviceInModel.Recurrent recurrent = new DefaultDeviceInModel.Recurrent();
      recurrent.toDevice(device);
      recurrent.forward(Tensor.randn(2, 4, device));
    });
    check(failures, "DefaultDeviceInModel.DefaultHidden", () -> {
      DefaultDeviceInModel.DefaultHidden cell = new DefaultDeviceInModel.DefaultHidden();
      cell.toDevice(device);
      cell.forward(Tensor.randn(2, 4, device));
    });
    check(failures, "HostSyncs.train", () -> require(HostSyncs.train(model, loader, device) > 0, "a positive loss"));
    check(failures, "HostSyncs.correct", () -> require(HostSyncs.correct(model, loader, device) >= 0, "a count"));
    check(failures, "CreateThenMove.initialState", () -> require(
        CreateThenMove.initialState(device, 4).device().equals(device.resolved()), "on the device"));
    check(failures, "CreateThenMove.Scaled",
        () -> new CreateThenMove.Scaled(device).forward(Tensor.randn(3, 4, device)));
    check(failures, "NonBlockingCopies.upload",
        () -> require(NonBlockingCopies.upload(new float[] {1, 2, 3}, device).sum().item() == 6, "copied"));
    check(failures, "NonBlockingCopies.predictions",
        () -> NonBlockingCopies.predictions(model, Tensor.randn(Shape.of(2, 1, 28, 28)), device));
    check(failures, "NonBlockingCopies.clipped",
        () -> NonBlockingCopies.clipped(model, Tensor.randn(Shape.of(2, 1, 28, 28)), device));
    check(failures, "ModelNotMoved.probe", () -> ModelNotMoved.probe(device));
    check(failures, "ModelNotMoved.built", () -> ModelNotMoved.built(device));
    check(failures, "ModelNotMoved.newHead", () -> ModelNotMoved.newHead(device));
    check(failures, "ModelNotMoved.train", () -> {
      TensorDataset flat = new TensorDataset(Tensor.randn(Shape.of(16, 784)), Tensor.randint(0, 10, Shape.of(16)));
      ModelNotMoved.train(DataLoader.builder(flat).batchSize(8).build(), device);
    });
    check(failures, "HostSyncs.step", () -> {
      Sgd optimizer = new Sgd(model.parameters(), 0.01);
      HostSyncs.step(model, optimizer, new CrossEntropyLoss(), Tensor.randn(Shape.of(4, 1, 28, 28), device),
          Tensor.randint(0, 10, Shape.of(4), device));
    });
    return failures;
  }

  private static void check(List<String> failures, String name, Program program) {
    try {
      program.run();
    } catch (Exception e) {
      failures.add(name + ": " + e.getMessage());
    }
  }

  private static void require(boolean condition, String what) {
    if (!condition) {
      throw new IllegalStateException("expected " + what);
    }
  }
}
