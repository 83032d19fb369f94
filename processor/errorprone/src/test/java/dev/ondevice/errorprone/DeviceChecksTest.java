package dev.ondevice.errorprone;

import com.google.errorprone.CompilationTestHelper;
import org.junit.jupiter.api.Test;

/**
 * Each check under Error Prone, with {@code // BUG: Diagnostic contains:} markers, against the real
 * runtime.
 */
class DeviceChecksTest {
  private static CompilationTestHelper helper(Class<? extends DeviceBugChecker> check) {
    // Only the check under test reports: the processor on the test classpath keeps quiet.
    return CompilationTestHelper.newInstance(check, DeviceChecksTest.class)
        .setArgs("-Aondevice.analysis=off");
  }

  @Test
  void discardedMove() {
    helper(DiscardedMove.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  void run(Tensor x, Device device) {",
            "    // BUG: Diagnostic contains: x.to(device) returns a new tensor and its result is discarded",
            "    x.to(device);",
            "    x = x.to(device);",
            "  }",
            "}")
        .doTest();
  }

  @Test
  void discardedTensorOp() {
    helper(DiscardedTensorOp.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  void run(Tensor x) {",
            "    // BUG: Diagnostic contains: x.relu() returns a new tensor",
            "    x.relu();",
            "    x.addi(x);",
            "  }",
            "}")
        .doTest();
  }

  @Test
  void mixedDevices() {
    helper(MixedDevices.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    Tensor a = Tensor.randn(2, 2, device);",
            "    // BUG: Diagnostic contains: b is made here on the CPU, and add (line 9) uses it with a",
            "    Tensor b = Tensor.ones(2, 2);",
            "    // BUG: Diagnostic contains: add gets tensors on two devices",
            "    return a.add(b).add(Tensor.ones(2, 2).neg());",
            "  }",
            "}")
        .doTest();
  }

  @Test
  void targetsNotMoved() {
    helper(TargetsNotMoved.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "import dev.ondevice.nn.CrossEntropyLoss;",
            "import dev.ondevice.nn.Layer;",
            "class Test {",
            "  void run(Layer model, DataLoader loader, Device device) {",
            "    CrossEntropyLoss loss = new CrossEntropyLoss();",
            "    for (Batch b : loader) {",
            "      Tensor xb = b.inputs().to(device);",
            "      Tensor yb = b.targets();",
            "      // BUG: Diagnostic contains: yb is still on the CPU",
            "      loss.forward(model.forward(xb), yb).backward();",
            "    }",
            "  }",
            "}")
        .doTest();
  }

  @Test
  void defaultDeviceInModel() {
    helper(DefaultDeviceInModel.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.nn.Layer;",
            "class Test extends Layer {",
            "  @Override",
            "  public Tensor forward(Tensor x) {",
            "    // BUG: Diagnostic contains: creates a tensor on the CPU (the default device) inside Test.forward",
            "    Tensor mask = Tensor.ones(2, 2);",
            "    return x.mul(mask);",
            "  }",
            "}")
        .doTest();
  }

  @Test
  void hostSyncInLoop() {
    helper(HostSyncInLoop.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "class Test {",
            "  double run(DataLoader loader, Device device) {",
            "    double total = 0;",
            "    for (Batch b : loader) {",
            "      // BUG: Diagnostic contains: makes the host wait for the device on every batch",
            "      total += b.inputs().to(device).sum().item();",
            "    }",
            "    return total;",
            "  }",
            "}")
        .doTest();
  }

  @Test
  void hardCodedDevice() {
    helper(HardCodedDevice.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor[] batch(Tensor x, Tensor y, Device device) {",
            "    // BUG: Diagnostic contains: a device written into the code, while this code moves its other tensors to device",
            "    x = x.to(Device.parse(\"cuda\"));",
            "    return new Tensor[] {x, y.to(device)};",
            "  }",
            "}")
        .doTest();
  }

  @Test
  void createThenMove() {
    helper(CreateThenMove.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    // BUG: Diagnostic contains: create it there instead: Tensor.randn(3, 3, device)",
            "    return Tensor.randn(3, 3).to(device);",
            "  }",
            "}")
        .doTest();
  }

  @Test
  void nonBlockingCopies() {
    helper(NonBlockingFromPageable.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    Tensor host = Tensor.ones(4);",
            "    // BUG: Diagnostic contains: is not in pinned memory",
            "    return host.to(device, true);",
            "  }",
            "}")
        .doTest();
    helper(NonBlockingFromPageable.class)
        .addSourceLines(
            "Batches.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "import dev.ondevice.data.TensorDataset;",
            "class Batches {",
            "  void run(Device device, DataLoader given) {",
            "    TensorDataset data = new TensorDataset(Tensor.randn(8, 4), Tensor.randn(8, 2));",
            "    DataLoader pageable = DataLoader.builder(data).batchSize(4).build();",
            "    for (Batch b : pageable) {",
            "      // BUG: Diagnostic contains: b.inputs() is not in pinned memory",
            "      Tensor x = b.inputs().to(device, true);",
            "    }",
            "    for (Batch b : DataLoader.builder(data).batchSize(4).pinMemory(true).build()) {",
            "      Tensor x = b.inputs().to(device, true);",
            "    }",
            "    for (Batch b : given) {",
            "      Tensor x = b.inputs().to(device, true);",
            "    }",
            "  }",
            "}")
        .doTest();
    helper(UnsyncedNonBlockingRead.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  float[] run(Device device) {",
            "    Tensor host = Tensor.randn(2, 2, device).to(Device.cpu(), true);",
            "    // BUG: Diagnostic contains: is read here before any synchronisation",
            "    return host.toFloatArray();",
            "  }",
            "}")
        .doTest();
  }

  @Test
  void modelNotMovedAndStaticConstants() {
    helper(ModelNotMoved.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.nn.Linear;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    Linear layer = new Linear(3, 2);",
            "    // BUG: Diagnostic contains: layer was never moved",
            "    return layer.forward(Tensor.randn(4, 3, device));",
            "  }",
            "}")
        .doTest();
    helper(StaticTensorConstant.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  static final Tensor SCALE = Tensor.of(new float[] {2f});",
            "  Tensor run(Device device) {",
            "    // BUG: Diagnostic contains: static tensor SCALE lives on the CPU",
            "    return Tensor.randn(2, 2, device).mul(SCALE);",
            "  }",
            "}")
        .doTest();
  }

  @Test
  void optimizerStateLeftBehind() {
    helper(OptimizerStateLeftBehind.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.nn.Linear;",
            "import dev.ondevice.optim.OptimizerState;",
            "import dev.ondevice.optim.Sgd;",
            "class Test {",
            "  void resume(OptimizerState saved, Device device) {",
            "    Linear model = new Linear(3, 2);",
            "    Sgd optimizer = new Sgd(model.parameters(), 0.1);",
            "    // BUG: Diagnostic contains: the state loaded into optimizer is put where model's parameters are now",
            "    optimizer.loadStateDict(saved);",
            "    model.toDevice(device);",
            "    optimizer.step();",
            "  }",
            "}")
        .doTest();
  }

  @Test
  void localModelClass() {
    helper(LocalModelClass.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.nn.Layer;",
            "import dev.ondevice.nn.Linear;",
            "class Test {",
            "  Layer build() {",
            "    // BUG: Diagnostic contains: Model class Net is declared inside a method, where the ondevice processor",
            "    class Net extends Layer {",
            "      final Linear fc = new Linear(3, 2);",
            "      @Override",
            "      public Tensor forward(Tensor x) {",
            "        return fc.forward(x);",
            "      }",
            "    }",
            "    return new Net();",
            "  }",
            "  Layer inline() {",
            "    // BUG: Diagnostic contains: This anonymous subclass of Layer is a model",
            "    return new Layer() {",
            "      @Override",
            "      public Tensor forward(Tensor x) {",
            "        return x.relu();",
            "      }",
            "    };",
            "  }",
            "}")
        .doTest();
  }

  @Test
  void mixedDevicesInPlaceReceiver() {
    helper(MixedDevices.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Device device, Tensor x) {",
            "    Tensor total = Tensor.scalar(0.0);",
            "    // BUG: Diagnostic contains: An in-place op writes its result where total is: move total first",
            "    total.addi(x.to(device).sum());",
            "    return total;",
            "  }",
            "}")
        .doTest();
  }

  @Test
  void discardedMoveThroughAMethodReference() {
    helper(DiscardedMove.class)
        .addSourceLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "import java.util.List;",
            "class Test {",
            "  void run(List<Tensor> xs) {",
            "    // BUG: Diagnostic contains: keep the moved tensors, for example with stream().map(Tensor::cuda).toList()",
            "    xs.forEach(Tensor::cuda);",
            "    // BUG: Diagnostic contains: the Runnable it is passed as discards it: tensors do not move in place (models do); keep the moved tensors",
            "    Runnable r = xs.get(0)::cuda;",
            "  }",
            "}")
        .doTest();
  }
}
