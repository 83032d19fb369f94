package dev.ondevice.errorprone;

import com.google.errorprone.BugCheckerRefactoringTestHelper;
import com.google.errorprone.BugCheckerRefactoringTestHelper.FixChoosers;
import com.google.errorprone.BugCheckerRefactoringTestHelper.TestMode;
import org.junit.jupiter.api.Test;

/** Every suggested fix, as input and expected output, applied by Error Prone's patching. */
class DeviceFixesTest {
  private static BugCheckerRefactoringTestHelper helper(Class<? extends DeviceBugChecker> check) {
    // The processor on the test classpath would report the bugs again when the fixed code is
    // compiled.
    return BugCheckerRefactoringTestHelper.newInstance(check, DeviceFixesTest.class)
        .setArgs("-Aondevice.analysis=off");
  }

  @Test
  void discardedMoveIsAssigned() {
    helper(DiscardedMove.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Tensor x, Device device) {",
            "    x.to(device);",
            "    return x;",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Tensor x, Device device) {",
            "    x = x.to(device);",
            "    return x;",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void hardCodedDeviceUsesTheDeviceVariable() {
    helper(HardCodedDevice.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor[] batch(Tensor x, Tensor y, Device device) {",
            "    return new Tensor[] {x.to(Device.parse(\"cuda\")), y.to(device)};",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor[] batch(Tensor x, Tensor y, Device device) {",
            "    return new Tensor[] {x.to(device), y.to(device)};",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void discardedChainIsAssignedToItsRootVariable() {
    helper(DiscardedTensorOp.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor normalize(Tensor x) {",
            "    x.sub(x.mean(0, true)).div(x.std(new int[] {0}, true, true));",
            "    return x;",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor normalize(Tensor x) {",
            "    x = x.sub(x.mean(0, true)).div(x.std(new int[] {0}, true, true));",
            "    return x;",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void noFixAssignsAVariableNothingReadsAgain() {
    helper(DiscardedMove.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  void prepare(Tensor x) {",
            "    x.cuda();",
            "  }",
            "}")
        .expectUnchanged()
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void assignmentInALoopIsReadByTheNextPass() {
    helper(DiscardedTensorOp.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Tensor h, int n) {",
            "    Tensor out = h;",
            "    for (int i = 0; i < n; i++) {",
            "      out = h.tanh();",
            "      h.mul(0.5);",
            "    }",
            "    return out;",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Tensor h, int n) {",
            "    Tensor out = h;",
            "    for (int i = 0; i < n; i++) {",
            "      out = h.tanh();",
            "      h = h.mul(0.5);",
            "    }",
            "    return out;",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void discardedOpIsAssignedOrDoneInPlace() {
    String[] input = {
      "import dev.ondevice.Tensor;",
      "class Test {",
      "  Tensor run(Tensor x, Tensor y) {",
      "    x.add(y);",
      "    return x;",
      "  }",
      "}"
    };
    helper(DiscardedTensorOp.class)
        .addInputLines("Test.java", input)
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Tensor x, Tensor y) {",
            "    x = x.add(y);",
            "    return x;",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
    helper(DiscardedTensorOp.class)
        .setFixChooser(FixChoosers.SECOND)
        .addInputLines("Test.java", input)
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Tensor x, Tensor y) {",
            "    x.addi(y);",
            "    return x;",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void createThenMoveCreatesOnTheDevice() {
    helper(CreateThenMove.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(int n, Device device) {",
            "    return Tensor.randn(n, n).to(device);",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(int n, Device device) {",
            "    return Tensor.randn(n, n, device);",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void createThenMoveOfAFactoryWithADtypeCreatesOnTheDevice() {
    // Tensor.zeros(Shape, DType) has no Device parameter: the analysis takes it for a CPU factory
    // from its @Factory annotation alone, and the fix finds zeros(Shape, DType, Device).
    helper(CreateThenMove.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.DType;",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Shape;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(int n, Device device) {",
            "    return Tensor.zeros(Shape.of(n), DType.INT64).to(device);",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.DType;",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Shape;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(int n, Device device) {",
            "    return Tensor.zeros(Shape.of(n), DType.INT64, device);",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void itemPerBatchBecomesAnOnDeviceSumReadOnce() {
    helper(HostSyncInLoop.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "import dev.ondevice.nn.CrossEntropyLoss;",
            "import dev.ondevice.nn.Layer;",
            "class Test {",
            "  double epoch(Layer model, DataLoader loader, Device device) {",
            "    CrossEntropyLoss criterion = new CrossEntropyLoss();",
            "    double total = 0;",
            "    int batches = 0;",
            "    for (Batch b : loader) {",
            "      Tensor loss = criterion.forward(model.forward(b.inputs().to(device)), b.targets().to(device));",
            "      loss.backward();",
            "      total += loss.item();",
            "      batches++;",
            "    }",
            "    return total / batches;",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "import dev.ondevice.nn.CrossEntropyLoss;",
            "import dev.ondevice.nn.Layer;",
            "class Test {",
            "  double epoch(Layer model, DataLoader loader, Device device) {",
            "    CrossEntropyLoss criterion = new CrossEntropyLoss();",
            "    Tensor total = Tensor.scalar(0.0);",
            "    int batches = 0;",
            "    for (Batch b : loader) {",
            "      Tensor loss = criterion.forward(model.forward(b.inputs().to(device)), b.targets().to(device));",
            "      loss.backward();",
            "      total = total.add(loss.detach());",
            "      batches++;",
            "    }",
            "    return total.item() / batches;",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void targetsAreMoved() {
    helper(TargetsNotMoved.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "import dev.ondevice.nn.CrossEntropyLoss;",
            "import dev.ondevice.nn.Layer;",
            "class Test {",
            "  void run(Layer model, DataLoader loader, Device device) {",
            "    CrossEntropyLoss criterion = new CrossEntropyLoss();",
            "    for (Batch b : loader) {",
            "      Tensor xb = b.inputs().to(device);",
            "      Tensor yb = b.targets();",
            "      criterion.forward(model.forward(xb), yb).backward();",
            "    }",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "import dev.ondevice.nn.CrossEntropyLoss;",
            "import dev.ondevice.nn.Layer;",
            "class Test {",
            "  void run(Layer model, DataLoader loader, Device device) {",
            "    CrossEntropyLoss criterion = new CrossEntropyLoss();",
            "    for (Batch b : loader) {",
            "      Tensor xb = b.inputs().to(device);",
            "      Tensor yb = b.targets();",
            "      criterion.forward(model.forward(xb), yb.to(device)).backward();",
            "    }",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void targetsFromACallAreMovedWhereUsed() {
    helper(TargetsNotMoved.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "import dev.ondevice.nn.Layer;",
            "class Test {",
            "  Tensor run(Layer model, DataLoader loader, Device device) {",
            "    Tensor correct = Tensor.zeros(1, device);",
            "    for (Batch b : loader) {",
            "      Tensor predicted = model.forward(b.inputs().to(device)).argmax(1, false);",
            "      correct = correct.add(predicted.eq(b.targets()).sum());",
            "    }",
            "    return correct;",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "import dev.ondevice.nn.Layer;",
            "class Test {",
            "  Tensor run(Layer model, DataLoader loader, Device device) {",
            "    Tensor correct = Tensor.zeros(1, device);",
            "    for (Batch b : loader) {",
            "      Tensor predicted = model.forward(b.inputs().to(device)).argmax(1, false);",
            "      correct = correct.add(predicted.eq(b.targets().to(device)).sum());",
            "    }",
            "    return correct;",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void mixedOperandIsMoved() {
    helper(MixedDevices.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    Tensor a = Tensor.randn(2, 2, device);",
            "    Tensor b = a.cpu();",
            "    return a.add(b);",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    Tensor a = Tensor.randn(2, 2, device);",
            "    Tensor b = a.cpu();",
            "    return a.add(b.to(device));",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void aLocalMadeOnTheCpuIsMadeOnTheDevice() {
    helper(MixedDevices.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    Tensor a = Tensor.randn(2, 2, device);",
            "    Tensor keep = Tensor.rand(a.shape()).gt(0.5);",
            "    return a.mul(keep);",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    Tensor a = Tensor.randn(2, 2, device);",
            "    Tensor keep = Tensor.rand(a.shape(), device).gt(0.5);",
            "    return a.mul(keep);",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void defaultDeviceFactoryTakesTheInputsDevice() {
    helper(DefaultDeviceInModel.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.nn.Layer;",
            "class Test extends Layer {",
            "  @Override",
            "  public Tensor forward(Tensor x) {",
            "    Tensor mask = Tensor.ones(2, 2);",
            "    return x.mul(mask);",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.nn.Layer;",
            "class Test extends Layer {",
            "  @Override",
            "  public Tensor forward(Tensor x) {",
            "    Tensor mask = Tensor.ones(2, 2, x.device());",
            "    return x.mul(mask);",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void defaultDeviceFactoryNeverRepeatsACall() {
    helper(DefaultDeviceInModel.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.nn.Layer;",
            "import dev.ondevice.nn.Linear;",
            "class Test extends Layer {",
            "  final Linear fc = new Linear(2, 2);",
            "  @Override",
            "  public Tensor forward(Tensor x) {",
            "    Tensor noise = Tensor.randn(2, 2);",
            "    return fc.forward(x).add(noise);",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.nn.Layer;",
            "import dev.ondevice.nn.Linear;",
            "class Test extends Layer {",
            "  final Linear fc = new Linear(2, 2);",
            "  @Override",
            "  public Tensor forward(Tensor x) {",
            "    Tensor noise = Tensor.randn(2, 2, x.device());",
            "    return fc.forward(x).add(noise);",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void nonBlockingFixes() {
    helper(NonBlockingFromPageable.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    Tensor host = Tensor.ones(4);",
            "    return host.to(device, true);",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    Tensor host = Tensor.ones(4);",
            "    return host.to(device, false);",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
    helper(UnsyncedNonBlockingRead.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  float[] run(Device device) {",
            "    Tensor host = Tensor.randn(2, 2, device).to(Device.cpu(), true);",
            "    return host.toFloatArray();",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Cuda;",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  float[] run(Device device) {",
            "    Tensor host = Tensor.randn(2, 2, device).to(Device.cpu(), true);",
            "    Cuda.synchronize();",
            "    return host.toFloatArray();",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void modelIsMovedAfterItsCreation() {
    helper(ModelNotMoved.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.nn.Linear;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    Linear layer = new Linear(3, 2);",
            "    Tensor x = Tensor.randn(4, 3, device);",
            "    return layer.forward(x);",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.nn.Linear;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    Linear layer = new Linear(3, 2);",
            "    layer.toDevice(device);",
            "    Tensor x = Tensor.randn(4, 3, device);",
            "    return layer.forward(x);",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void noAssignmentToAFinalOrCapturedVariable() {
    helper(DiscardedMove.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import java.util.function.Supplier;",
            "class Test {",
            "  Tensor run(final Tensor x, Tensor y, Device device) {",
            "    x.to(device);",
            "    y.to(device);",
            "    Supplier<Tensor> later = () -> y.relu();",
            "    return x.add(y).add(later.get());",
            "  }",
            "}")
        .expectUnchanged()
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void floatTotalIsReadBackAsFloat() {
    helper(HostSyncInLoop.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "import dev.ondevice.nn.Layer;",
            "class Test {",
            "  float epoch(Layer model, DataLoader loader, Device device) {",
            "    float total = 0f;",
            "    for (Batch b : loader) {",
            "      total += model.forward(b.inputs().to(device)).sum().item();",
            "    }",
            "    float mean = total / 10;",
            "    return mean;",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "import dev.ondevice.nn.Layer;",
            "class Test {",
            "  float epoch(Layer model, DataLoader loader, Device device) {",
            "    Tensor total = Tensor.scalar(0.0);",
            "    for (Batch b : loader) {",
            "      total = total.add(model.forward(b.inputs().to(device)).sum().detach());",
            "    }",
            "    float mean = ((float) total.item()) / 10;",
            "    return mean;",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void noModelMoveBeforeItsDeviceIsDeclared() {
    helper(ModelNotMoved.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.nn.Linear;",
            "class Test {",
            "  Tensor run() {",
            "    Linear layer = new Linear(3, 2);",
            "    Device device = Device.cudaIfAvailable();",
            "    Tensor x = Tensor.randn(4, 3, device);",
            "    return layer.forward(x);",
            "  }",
            "}")
        .expectUnchanged()
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void aFactoryInForwardIsGivenADeviceDeclaredBeforeIt() {
    helper(DefaultDeviceInModel.class)
        .addInputLines(
            "Net.java",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.nn.Linear;",
            "import dev.ondevice.nn.Model;",
            "class Net extends Model {",
            "  final Linear fc = new Linear(16, 16);",
            "  Tensor forward(Tensor x) {",
            "    Tensor noise = Tensor.randn(8, 16);",
            "    Tensor h = fc.forward(x);",
            "    return h.add(noise);",
            "  }",
            "}")
        .addOutputLines(
            "Net.java",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.nn.Linear;",
            "import dev.ondevice.nn.Model;",
            "class Net extends Model {",
            "  final Linear fc = new Linear(16, 16);",
            "  Tensor forward(Tensor x) {",
            "    Tensor noise = Tensor.randn(8, 16, device());",
            "    Tensor h = fc.forward(x);",
            "    return h.add(noise);",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void aHostReadOfAnotherTypeGetsNoAccumulateFix() {
    helper(HostSyncInLoop.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.annotations.HostSync;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "import dev.ondevice.nn.Layer;",
            "class Test {",
            "  static final class Meter {",
            "    private Tensor last = Tensor.scalar(0.0);",
            "    void update(Tensor loss) {",
            "      last = loss.detach();",
            "    }",
            "    @HostSync",
            "    double value() {",
            "      return last.item();",
            "    }",
            "  }",
            "  double epoch(Layer model, DataLoader loader, Device device, Meter meter) {",
            "    double total = 0.0;",
            "    for (Batch b : loader) {",
            "      meter.update(model.forward(b.inputs().to(device)).sum());",
            "      total += meter.value();",
            "    }",
            "    return total;",
            "  }",
            "}")
        .expectUnchanged()
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void aVarTotalKeepsVarAndTakesATensor() {
    helper(HostSyncInLoop.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "import dev.ondevice.nn.Layer;",
            "class Test {",
            "  double epoch(Layer model, DataLoader loader, Device device) {",
            "    var total = 0.0;",
            "    for (Batch b : loader) {",
            "      Tensor loss = model.forward(b.inputs().to(device)).mean();",
            "      total += loss.item();",
            "    }",
            "    return total;",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "import dev.ondevice.nn.Layer;",
            "class Test {",
            "  double epoch(Layer model, DataLoader loader, Device device) {",
            "    var total = Tensor.scalar(0.0);",
            "    for (Batch b : loader) {",
            "      Tensor loss = model.forward(b.inputs().to(device)).mean();",
            "      total = total.add(loss.detach());",
            "    }",
            "    return total.item();",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void noAccumulateFixForATotalDeclaredWithAnother() {
    helper(HostSyncInLoop.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.data.Batch;",
            "import dev.ondevice.data.DataLoader;",
            "import dev.ondevice.nn.Layer;",
            "class Test {",
            "  double epoch(Layer model, DataLoader loader, Device device) {",
            "    double total = 0, steps = 0;",
            "    for (Batch b : loader) {",
            "      total += model.forward(b.inputs().to(device)).mean().item();",
            "      steps++;",
            "    }",
            "    return total / steps;",
            "  }",
            "}")
        .expectUnchanged()
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void aModelDeclaredWithAnotherIsMovedAfterBoth() {
    helper(ModelNotMoved.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.nn.Linear;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    Linear encoder = new Linear(3, 2), decoder = new Linear(2, 3);",
            "    decoder.toDevice(device);",
            "    return decoder.forward(encoder.forward(Tensor.randn(4, 3, device)));",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "import dev.ondevice.nn.Linear;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    Linear encoder = new Linear(3, 2), decoder = new Linear(2, 3);",
            "    encoder.toDevice(device);",
            "    decoder.toDevice(device);",
            "    return decoder.forward(encoder.forward(Tensor.randn(4, 3, device)));",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void aDeviceFieldOfAnotherClassIsNamedThroughIt() {
    helper(MixedDevices.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  static final class Env {",
            "    static final Device DEVICE = Device.cudaIfAvailable();",
            "  }",
            "  Tensor run(Tensor x) {",
            "    Tensor b = Tensor.zeros(2, 2);",
            "    return x.to(Env.DEVICE).add(b);",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  static final class Env {",
            "    static final Device DEVICE = Device.cudaIfAvailable();",
            "  }",
            "  Tensor run(Tensor x) {",
            "    Tensor b = Tensor.zeros(2, 2, Env.DEVICE);",
            "    return x.to(Env.DEVICE).add(b);",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void aMixedOperandCreatedOnTheCpuIsCreatedOnTheDevice() {
    helper(MixedDevices.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    return Tensor.randn(2, 2, device).add(Tensor.ones(2, 2));",
            "  }",
            "}")
        .addOutputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Device device) {",
            "    return Tensor.randn(2, 2, device).add(Tensor.ones(2, 2, device));",
            "  }",
            "}")
        .doTest(TestMode.TEXT_MATCH);
  }

  @Test
  void noFixMovesTheReceiverOfAnInPlaceOp() {
    helper(MixedDevices.class)
        .addInputLines(
            "Test.java",
            "import dev.ondevice.Device;",
            "import dev.ondevice.Tensor;",
            "class Test {",
            "  Tensor run(Device device, Tensor x) {",
            "    Tensor total = Tensor.scalar(0.0);",
            "    total.addi(x.to(device).sum());",
            "    return total;",
            "  }",
            "}")
        .expectUnchanged()
        .doTest(TestMode.TEXT_MATCH);
  }
}
