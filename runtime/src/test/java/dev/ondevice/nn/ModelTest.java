package dev.ondevice.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The generated model code at work: moves, names, state dicts, modes. */
class ModelTest {
  private static final Device CUDA = Device.cuda(0);

  @Test
  void parametersAndBuffersAreNamedInDeclarationOrderSuperclassFirst() {
    TestModels.Net net = new TestModels.Net();
    assertEquals(
        List.of(
            "scale",
            "fc1.weight",
            "fc1.bias",
            "blocks.0.w",
            "blocks.1.w",
            "heads.a.w",
            "heads.b.w"),
        List.copyOf(net.namedParameters().keySet()));
    assertEquals(
        List.of(
            "runningMean",
            "scratch",
            "mask",
            "vocabulary",
            "blocks.0.count",
            "blocks.1.count",
            "heads.a.count",
            "heads.b.count"),
        List.copyOf(net.namedBuffers().keySet()));
    assertEquals(
        List.of(
            "scale",
            "fc1.weight",
            "fc1.bias",
            "runningMean",
            "vocabulary",
            "blocks.0.w",
            "blocks.0.count",
            "blocks.1.w",
            "blocks.1.count",
            "heads.a.w",
            "heads.a.count",
            "heads.b.w",
            "heads.b.count"),
        List.copyOf(net.stateDict().keySet()));
    assertEquals(
        List.of("fc1", "blocks.0", "blocks.1", "heads.a", "heads.b"),
        List.copyOf(net.namedChildren().keySet()));
  }

  @Test
  void loadingIntoAnUnsetBufferPutsItWithTheModelOrOnTheCpuWhenPinned() {
    TestModels.Lazy model = new TestModels.Lazy();
    model.toDevice(CUDA);
    Map<String, Tensor> state = new java.util.LinkedHashMap<>(new TestModels.Lazy().stateDict());
    state.put("stats", Tensor.ones(3));
    state.put("vocabulary", Tensor.arange(4));
    model.loadStateDict(state, true);
    assertEquals(CUDA, model.stats.device());
    assertEquals(Device.cpu(), model.vocabulary.device());
    assertArrayEquals(new float[] {1, 1, 1}, model.stats.cpu().toFloatArray());
  }

  @Test
  void aModelWithAnUnsetBufferLoadsItsOwnStateDict() {
    TestModels.Lazy saved = new TestModels.Lazy();
    assertEquals(
        List.of("fc.weight", "fc.bias"),
        List.copyOf(saved.stateDict().keySet()),
        "null buffers left out");
    TestModels.Lazy restored = new TestModels.Lazy();
    LoadResult result = restored.loadStateDict(saved.stateDict(), true);
    assertEquals(List.of(), result.missingKeys());
    assertEquals(List.of(), result.unexpectedKeys());
    assertEquals(null, restored.stats, "still unset");
    assertArrayEquals(saved.fc.weight.toFloatArray(), restored.fc.weight.toFloatArray());
  }

  @Test
  void aMapWithoutAnOrderOfItsOwnIsVisitedInKeyOrder() {
    Map<String, TestModels.Block> hashed = new java.util.HashMap<>();
    hashed.put("c", new TestModels.Block(1));
    hashed.put("ba", new TestModels.Block(2));
    assertEquals(
        List.of("c", "ba"),
        List.copyOf(hashed.keySet()),
        "a HashMap's own order, not the keys' order");
    assertEquals(
        List.of("heads.ba.w", "heads.c.w"),
        List.copyOf(new TestModels.Heads(hashed).namedParameters().keySet()));
    Map<String, TestModels.Block> inserted = new java.util.LinkedHashMap<>();
    inserted.put("c", new TestModels.Block(1));
    inserted.put("ba", new TestModels.Block(2));
    assertEquals(
        List.of("heads.c.w", "heads.ba.w"),
        List.copyOf(new TestModels.Heads(inserted).namedParameters().keySet()));
  }

  @Test
  void movingKeepsParameterIdentityMovesBuffersAndLeavesPinnedFields() {
    TestModels.Net net = new TestModels.Net();
    List<Parameter> before = net.parameters();
    Tensor meanBefore = net.runningMean;
    Tensor table = net.lookupTable;
    net.toDevice(CUDA);
    List<Parameter> after = net.parameters();
    for (int i = 0; i < before.size(); i++) {
      assertSame(before.get(i), after.get(i));
      assertEquals(CUDA, after.get(i).device());
    }
    assertNotSame(meanBefore, net.runningMean);
    assertEquals(CUDA, net.runningMean.device());
    assertEquals(CUDA, net.scratch.device());
    assertEquals(CUDA, net.mask.device());
    assertEquals(CUDA, net.blocks.get(1).count.device());
    assertEquals(CUDA, net.heads.get("b").count.device());
    assertEquals(Device.cpu(), net.vocabulary.device());
    assertSame(table, net.lookupTable);
    assertEquals(CUDA, net.device());

    net.toDevice(Device.cpu());
    for (Parameter p : net.parameters()) {
      assertEquals(Device.cpu(), p.device());
    }
    assertEquals(Device.cpu(), net.runningMean.device());
    assertArrayEquals(new float[] {2, 2}, net.blocks.get(1).w.toFloatArray());
  }

  @Test
  void aForwardPassWorksAfterTheMoveAndGradientsLandOnTheDevice() {
    Linear layer = new Linear(3, 2);
    layer.toDevice(CUDA);
    Tensor x = Tensor.randn(5, 3, CUDA);
    layer.forward(x).sum().backward();
    assertEquals(CUDA, layer.weight().grad().device());
    layer.toDevice(Device.cpu());
    assertEquals(Device.cpu(), layer.weight().grad().device());
  }

  @Test
  void sharedSubmodulesAreParametersOnceAndInTheStateDictUnderEachName() {
    TestModels.Shared shared = new TestModels.Shared();
    assertEquals(List.of("first.w"), List.copyOf(shared.namedParameters().keySet()));
    assertEquals(1, shared.parameters().size());
    // As PyTorch's state_dict(): tied weights under both names, so that its state dicts load
    // strictly.
    assertEquals(
        List.of("first.w", "first.count", "second.w", "second.count"),
        List.copyOf(shared.stateDict().keySet()));
    Map<String, Tensor> state = new LinkedHashMap<>(shared.stateDict());
    state.put("first.w", Tensor.full(shared.first.w.shape(), 3.0));
    state.put("second.w", Tensor.full(shared.first.w.shape(), 3.0));
    TestModels.Shared loaded = new TestModels.Shared();
    assertTrue(loaded.loadStateDict(state, true).missingKeys().isEmpty());
    assertEquals(3.0, loaded.second.w.toDoubleArray()[0]);
    state.remove("second.w");
    StateDictException e =
        assertThrows(StateDictException.class, () -> loaded.loadStateDict(state, true));
    assertTrue(e.getMessage().contains("second.w"), e.getMessage());
    shared.toDevice(CUDA);
    assertEquals(CUDA, shared.second.w.device());
  }

  @Test
  void stateDictRoundTripAcrossDevices() {
    TestModels.Net source = new TestModels.Net();
    source.runningMean = Tensor.of(new float[] {1, 2, 3, 4});
    source.toDevice(CUDA);
    TestModels.Net target = new TestModels.Net();
    LoadResult result = target.loadStateDict(source.stateDict(), true);
    assertTrue(result.missingKeys().isEmpty() && result.unexpectedKeys().isEmpty());
    assertEquals(Device.cpu(), target.fc1.weight().device());
    assertArrayEquals(source.fc1.weight().toFloatArray(), target.fc1.weight().toFloatArray());
    assertArrayEquals(new float[] {1, 2, 3, 4}, target.runningMean.toFloatArray());
  }

  @Test
  void strictLoadingNamesMissingUnexpectedAndMisshapedKeysAndCopiesNothing() {
    TestModels.Net net = new TestModels.Net();
    float[] weightBefore = net.fc1.weight().toFloatArray();
    Map<String, Tensor> state = new java.util.LinkedHashMap<>(new TestModels.Net().stateDict());
    state.remove("runningMean");
    state.put("extra.weight", Tensor.zeros(1));
    state.put("fc1.bias", Tensor.zeros(5));
    StateDictException e =
        assertThrows(StateDictException.class, () -> net.loadStateDict(state, true));
    assertEquals(List.of("runningMean"), e.missingKeys());
    assertEquals(List.of("extra.weight"), e.unexpectedKeys());
    assertEquals(List.of("fc1.bias"), e.mismatchedKeys());
    assertTrue(e.getMessage().contains("Missing key(s): runningMean"), e.getMessage());
    assertTrue(e.getMessage().contains("Unexpected key(s): extra.weight"), e.getMessage());
    assertTrue(
        e.getMessage().contains("fc1.bias: the state has shape [5], the model [4]"),
        e.getMessage());
    assertArrayEquals(weightBefore, net.fc1.weight().toFloatArray());
  }

  @Test
  void nonStrictLoadingReportsKeysButStillRejectsShapes() {
    TestModels.Net net = new TestModels.Net();
    Map<String, Tensor> state = new java.util.LinkedHashMap<>(new TestModels.Net().stateDict());
    state.remove("scale");
    state.put("unused", Tensor.zeros(1));
    LoadResult r = net.loadStateDict(state, false);
    assertEquals(List.of("scale"), r.missingKeys());
    assertEquals(List.of("unused"), r.unexpectedKeys());
    state.put("fc1.weight", Tensor.zeros(2, 2));
    StateDictException e =
        assertThrows(StateDictException.class, () -> net.loadStateDict(state, false));
    assertEquals(List.of("fc1.weight"), e.mismatchedKeys());
    assertEquals(List.of(), e.missingKeys());
    assertEquals(List.of(), e.unexpectedKeys());
    assertFalse(e.getMessage().contains("Missing key(s)"), e.getMessage());
    assertFalse(e.getMessage().contains("Unexpected key(s)"), e.getMessage());
  }

  @Test
  void loadingKeepsTheDeviceAndDtypeOfTheModel() {
    Linear cuda = new Linear(2, 2);
    cuda.toDevice(CUDA);
    Linear cpu = new Linear(2, 2);
    Map<String, Tensor> state =
        Map.of(
            "weight",
            Tensor.of(new double[] {1, 2, 3, 4}, 2, 2),
            "bias",
            Tensor.of(new double[] {5, 6}));
    cuda.loadStateDict(state, true);
    assertEquals(CUDA, cuda.weight().device());
    assertEquals(dev.ondevice.DType.FLOAT32, cuda.weight().dtype());
    assertArrayEquals(new float[] {1, 2, 3, 4}, cuda.weight().toFloatArray());
    cpu.loadStateDict(cuda.stateDict(), true);
    assertArrayEquals(new float[] {5, 6}, cpu.bias().toFloatArray());
  }

  @Test
  void trainAndEvalPropagateToEverySubmodule() {
    TestModels.Net net = new TestModels.Net();
    assertTrue(net.isTraining());
    net.eval();
    assertFalse(net.isTraining());
    assertFalse(net.fc1.isTraining());
    assertFalse(net.blocks.get(0).isTraining());
    assertFalse(net.heads.get("b").isTraining());
    net.train();
    assertTrue(net.heads.get("b").isTraining());
  }

  @Test
  void zeroGradClearsEveryGradient() {
    Linear layer = new Linear(2, 1);
    layer.forward(Tensor.ones(3, 2)).sum().backward();
    assertEquals(Shape.of(1, 2), layer.weight().grad().shape());
    layer.zeroGrad();
    assertEquals(null, layer.weight().grad());
  }

  @Test
  @SuppressWarnings(
      "LocalModelClass") // the run-time message, for code compiled without the analysis
  void anonymousModelClassesAreRejectedWithAReason() {
    Model anonymous = new Model() {};
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> anonymous.toDevice(CUDA));
    assertTrue(e.getMessage().contains("is anonymous"), e.getMessage());
  }

  @Test
  void modelsPrintTheirStructureAsPyTorchDoes() {
    Sequential net =
        new Sequential(
            new Linear(784, 128),
            new ReLU(),
            new Dropout(0.25),
            new Conv2d(1, 8, 3, 1, 1, false),
            new BatchNorm1d(10));
    assertEquals(
        """
        Sequential(
          (0): Linear(in_features=784, out_features=128, bias=true)
          (1): ReLU()
          (2): Dropout(p=0.25)
          (3): Conv2d(1, 8, kernel_size=3, stride=1, padding=1, bias=false)
          (4): BatchNorm1d(10, eps=1.0E-5, momentum=0.1, affine=true)
        )""",
        net.toString());
    TestModels.Net nested = new TestModels.Net();
    String printed = nested.toString();
    assertEquals(
        """
        Net(
          (fc1): Linear(in_features=3, out_features=4, bias=true)
          (blocks): List(
            (0): Block()
            (1): Block()
          )
          (heads): Map(
            (a): Block()
            (b): Block()
          )
        )""",
        printed);
    assertEquals(
        """
        LayerList(
          (0): Sequential(
            (0): Linear(in_features=2, out_features=2, bias=true)
            (1): ReLU()
          )
          (1): Tanh()
        )""",
        new LayerList(new Sequential(new Linear(2, 2), new ReLU()), new Tanh()).toString());
    assertEquals("Flatten(start_dim=1, end_dim=-1)", new Flatten().toString());
  }

  @Test
  void modulesAndApplyVisitEveryModuleOnceChildrenFirst() {
    Linear shared = new Linear(2, 2);
    Sequential inner = new Sequential(shared, new ReLU());
    Sequential net = new Sequential(inner, shared);
    List<Model> all = net.modules();
    assertEquals(4, all.size(), all.toString());
    assertSame(net, all.get(0));
    assertSame(inner, all.get(1));
    assertSame(shared, all.get(2));
    List<Model> applied = new java.util.ArrayList<>();
    net.apply(applied::add);
    assertEquals(List.of(shared, all.get(3), inner, net), applied);
    try (dev.ondevice.Autograd.Scope ignored = dev.ondevice.Autograd.noGrad()) {
      net.apply(
          m -> {
            if (m instanceof Linear l) {
              l.weight().fill(0.5);
            }
          });
    }
    assertArrayEquals(new float[] {0.5f, 0.5f, 0.5f, 0.5f}, shared.weight().toFloatArray());
    assertEquals(Shape.of(2, 2), shared.weight().size());
  }
}
