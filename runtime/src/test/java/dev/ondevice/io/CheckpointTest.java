package dev.ondevice.io;

import static dev.ondevice.io.SafetensorsTest.f32;
import static dev.ondevice.io.SafetensorsTest.handMade;
import static dev.ondevice.io.SafetensorsTest.padded;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ondevice.Cuda;
import dev.ondevice.Device;
import dev.ondevice.EmulatedCuda;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.StateDictException;
import dev.ondevice.optim.Optimizer;
import dev.ondevice.optim.OptimizerState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints: a model and an optimizer in one safetensors file, saved atomically, loaded with a
 * map location, restored strictly.
 */
class CheckpointTest {
  @TempDir Path dir;

  /** A tiny model: one layer and a persistent buffer. */
  static class TinyNet extends Model {
    final Linear fc = new Linear(3, 2);
    @Buffer Tensor seen = Tensor.zeros(1, Device.cpu());

    Tensor forward(Tensor x) {
      return fc.forward(x);
    }
  }

  /** SGD with momentum, written here so that the test depends only on the optimizer base class. */
  static final class Momentum extends Optimizer {
    private double momentum;

    Momentum(Collection<Parameter> parameters, double learningRate, double momentum) {
      super(parameters, learningRate);
      this.momentum = momentum;
    }

    @Override
    protected void update(Parameter p, Tensor grad, Map<String, Tensor> state, long step) {
      Tensor buffer = state.get("momentum");
      if (buffer == null) {
        buffer = grad.clone();
        state.put("momentum", buffer);
      } else {
        buffer.muli(momentum).addi(grad);
      }
      p.subi(buffer.mul(learningRate()));
    }

    @Override
    protected Set<String> stateNames() {
      return Set.of("momentum");
    }

    @Override
    protected Map<String, String> hyperParameters() {
      return Map.of("momentum", Double.toString(momentum));
    }

    @Override
    protected void setHyperParameters(Map<String, String> values) {
      momentum = Double.parseDouble(values.get("momentum"));
    }
  }

  /** One training step of {@code model} on a fixed batch, on the model's device. */
  private static void train(TinyNet model, Optimizer optimizer, int seed) {
    Device device = model.device();
    float[] x = new float[12];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) Math.sin(seed * 31 + i);
    }
    Tensor xb = Tensor.of(x, Shape.of(4, 3), device);
    optimizer.zeroGrad();
    Tensor loss = model.forward(xb).square().sum();
    loss.backward();
    optimizer.step();
    model.seen.addi(1.0);
  }

  private static void assertSameState(Map<String, Tensor> expected, Map<String, Tensor> actual) {
    assertEquals(expected.keySet(), actual.keySet());
    for (String k : expected.keySet()) {
      assertArrayEquals(expected.get(k).toFloatArray(), actual.get(k).toFloatArray(), k);
      assertEquals(expected.get(k).shape(), actual.get(k).shape(), k);
    }
  }

  private List<String> listDir() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  // ---------------------------------------------------------------- model and optimizer

  @Test
  void restoresAModelAndItsOptimizerExactly() throws IOException {
    TinyNet model = new TinyNet();
    Momentum optimizer = new Momentum(model.parameters(), 0.1, 0.9);
    train(model, optimizer, 1);
    train(model, optimizer, 2);
    Path file = dir.resolve("ckpt.safetensors");
    Checkpoint.save(file, model, optimizer);

    TinyNet restored = new TinyNet();
    Momentum restoredOptimizer = new Momentum(restored.parameters(), 0.5, 0.1);
    Checkpoint c =
        Checkpoint.restore(file, restored, restoredOptimizer, MapLocation.to(Device.cpu()));
    assertEquals(file, c.file());
    assertSameState(model.stateDict(), restored.stateDict());
    assertEquals(2f, restored.seen.item(), "buffers too");
    assertEquals(0.1, restoredOptimizer.learningRate());
    assertEquals("0.9", restoredOptimizer.stateDict().metadata().get("momentum"));
    assertEquals("2", restoredOptimizer.stateDict().metadata().get("state.0.steps"));
    for (int i = 0; i < 2; i++) {
      assertSameState(optimizer.state(i), restoredOptimizer.state(i));
    }

    // Training on from the checkpoint gives what training on without it gives.
    train(model, optimizer, 3);
    train(restored, restoredOptimizer, 3);
    assertSameState(model.stateDict(), restored.stateDict());
  }

  @Test
  void theFileIsPlainSafetensorsWithTheDocumentedLayout() throws IOException {
    TinyNet model = new TinyNet();
    Momentum optimizer = new Momentum(model.parameters(), 0.25, 0.5);
    train(model, optimizer, 1);
    Path file = dir.resolve("layout.safetensors");
    Checkpoint.save(file, model, optimizer);

    Safetensors.Contents c = Safetensors.load(file);
    assertEquals(
        List.of(
            "fc.bias",
            "fc.weight",
            "optimizer/state.0.momentum",
            "optimizer/state.1.momentum",
            "seen"),
        c.tensors().keySet().stream().sorted().collect(Collectors.toList()));
    Map<String, String> m = c.metadata();
    assertEquals("pt", m.get("format"));
    assertEquals("1", m.get("ondevice/checkpoint"));
    assertEquals("true", m.get("ondevice/optimizer"));
    assertEquals("cpu", m.get("device/fc.weight"));
    assertEquals("cpu", m.get("device/optimizer/state.0.momentum"));
    assertEquals("Momentum", m.get("optimizer/type"));
    assertEquals("0.25", m.get("optimizer/lr"));
    assertEquals("0.5", m.get("optimizer/momentum"));
    assertEquals("1", m.get("optimizer/state.1.steps"));
    assertArrayEquals(
        model.fc.weight().toFloatArray(), c.tensors().get("fc.weight").toFloatArray());
  }

  @Test
  void aModelAloneHasNoOptimizerState() throws IOException {
    TinyNet model = new TinyNet();
    Path file = dir.resolve("model.safetensors");
    Checkpoint.save(file, model, null);
    Checkpoint c = Checkpoint.load(file, MapLocation.to(Device.cpu()));
    assertFalse(c.optimizerState().isPresent());
    assertEquals("false", Safetensors.load(file).metadata().get("ondevice/optimizer"));

    TinyNet other = new TinyNet();
    Momentum optimizer = new Momentum(other.parameters(), 0.1, 0.9);
    float[] before = other.fc.weight().toFloatArray();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Checkpoint.restore(file, other, optimizer, MapLocation.to(Device.cpu())));
    assertTrue(
        e.getMessage().startsWith(file + ": ") && e.getMessage().contains("no optimizer state"),
        e.getMessage());
    assertArrayEquals(before, other.fc.weight().toFloatArray(), "nothing restored");

    Checkpoint.restore(file, other, null, MapLocation.to(Device.cpu()));
    assertArrayEquals(model.fc.weight().toFloatArray(), other.fc.weight().toFloatArray());
  }

  @Test
  void restoringIsStrict() throws IOException {
    Path file = dir.resolve("partial.safetensors");
    TinyNet model = new TinyNet();
    Map<String, Tensor> partial = new LinkedHashMap<>(model.stateDict());
    partial.remove("seen");
    partial.put("extra", Tensor.ones(2));
    Checkpoint.save(file, partial, null);
    StateDictException e =
        assertThrows(
            StateDictException.class,
            () -> Checkpoint.restore(file, new TinyNet(), null, MapLocation.to(Device.cpu())));
    assertEquals(List.of("seen"), e.missingKeys());
    assertEquals(List.of("extra"), e.unexpectedKeys());
  }

  @Test
  void anOptimizerOfTheWrongShapeIsReportedWithTheFile() throws IOException {
    TinyNet model = new TinyNet();
    Momentum optimizer = new Momentum(model.parameters(), 0.1, 0.9);
    train(model, optimizer, 1);
    Path file = dir.resolve("ckpt.safetensors");
    Checkpoint.save(file, model, optimizer);
    TinyNet other = new TinyNet();
    Momentum onlyWeights = new Momentum(List.of(other.fc.weight()), 0.1, 0.9);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Checkpoint.restore(file, other, onlyWeights, MapLocation.to(Device.cpu())));
    assertTrue(
        e.getMessage().startsWith(file + ": the optimizer's state does not fit Momentum"),
        e.getMessage());
  }

  @Test
  void loadsAStateDictWrittenByPyTorch() throws IOException {
    // As safetensors.torch.save_file(model.state_dict(), path, metadata={"format": "pt"}) writes
    // it.
    String json =
        "{\"__metadata__\":{\"format\":\"pt\"},"
            + "\"fc.weight\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
            + "\"fc.bias\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[24,32]},"
            + "\"seen\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[32,36]}}";
    Path file =
        Files.write(
            dir.resolve("torch.safetensors"),
            handMade(padded(json), f32(1, 2, 3, 4, 5, 6), f32(-1, -2), f32(7)));
    TinyNet model = new TinyNet();
    Checkpoint c = Checkpoint.restore(file, model, null, MapLocation.to(Device.cpu()));
    assertFalse(c.optimizerState().isPresent());
    assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, model.fc.weight().toFloatArray());
    assertArrayEquals(new float[] {-1, -2}, model.fc.bias().toFloatArray());
    assertEquals(7f, model.seen.item());
    // Without device entries, tensors count as saved on the CPU, which maps to itself.
    Checkpoint remapped =
        Checkpoint.load(file, MapLocation.remap(Map.of(Device.cuda(0), Device.cpu())));
    assertEquals(Device.cpu(), remapped.stateDict().get("fc.weight").device());
  }

  // ---------------------------------------------------------------- map locations

  private static void requireTwoDevices() {
    assumeTrue(
        Cuda.deviceCount() >= 2,
        "needs emulated cuda:0 and cuda:1 (-Dondevice.emulatedCudaDevices=2)");
  }

  /** Saves a model trained on {@code device}, with its optimizer; returns the model. */
  private TinyNet savedOn(Device device, Path file) throws IOException {
    TinyNet model = new TinyNet();
    model.toDevice(device);
    Momentum optimizer = new Momentum(model.parameters(), 0.1, 0.9);
    train(model, optimizer, 4);
    Checkpoint.save(file, model, optimizer);
    return model;
  }

  @Test
  void cudaCheckpointsLoadOntoTheCpu() throws IOException {
    requireTwoDevices();
    Path file = dir.resolve("cuda0.safetensors");
    TinyNet model = savedOn(Device.cuda(0), file);
    assertEquals("cuda:0", Safetensors.load(file).metadata().get("device/fc.weight"));

    Checkpoint c = Checkpoint.load(file, MapLocation.to(Device.cpu()));
    for (Tensor t : c.stateDict().values()) {
      assertEquals(Device.cpu(), t.device());
    }
    for (Tensor t : c.optimizerState().orElseThrow().tensors().values()) {
      assertEquals(Device.cpu(), t.device());
    }
    assertArrayEquals(
        model.fc.weight().toFloatArray(), c.stateDict().get("fc.weight").toFloatArray());

    Checkpoint mapped =
        Checkpoint.load(file, MapLocation.remap(Map.of(Device.cuda(0), Device.cpu())));
    assertEquals(Device.cpu(), mapped.stateDict().get("fc.bias").device());
    assertEquals(Device.cpu(), mapped.stateDict().get("seen").device());
  }

  @Test
  void remappingMovesEachSavedDeviceWhereTheMappingSays() throws IOException {
    requireTwoDevices();
    Path file = dir.resolve("cuda1.safetensors");
    TinyNet model = savedOn(Device.cuda(1), file);
    Checkpoint c = Checkpoint.load(file, MapLocation.remap(Map.of(Device.cuda(1), Device.cuda(0))));
    for (Tensor t : c.stateDict().values()) {
      assertEquals(Device.cuda(0), t.device());
    }
    OptimizerState state = c.optimizerState().orElseThrow();
    assertEquals(Device.cuda(0), state.tensors().get("state.0.momentum").device());
    assertSameState(model.stateDict(), c.stateDict());

    // Restoring into a model on the CPU: parameters keep their device, the optimizer state follows
    // them.
    TinyNet onCpu = new TinyNet();
    Momentum optimizer = new Momentum(onCpu.parameters(), 0.3, 0.3);
    Checkpoint.restore(
        file, onCpu, optimizer, MapLocation.remap(Map.of(Device.cuda(1), Device.cpu())));
    assertEquals(Device.cpu(), onCpu.fc.weight().device());
    assertEquals(Device.cpu(), optimizer.state(0).get("momentum").device());
    assertSameState(model.stateDict(), onCpu.stateDict());
  }

  @Test
  void aSavedDeviceMissingFromTheMappingIsAnError() throws IOException {
    requireTwoDevices();
    Path file = dir.resolve("cuda1.safetensors");
    savedOn(Device.cuda(1), file);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Checkpoint.load(file, MapLocation.remap(Map.of(Device.cuda(0), Device.cpu()))));
    assertTrue(e.getMessage().startsWith(file + ": tensor '"), e.getMessage());
    assertTrue(e.getMessage().contains("was saved on cuda:1"), e.getMessage());
    assertTrue(
        e.getMessage().contains("does not say where tensors saved on cuda:1 go"), e.getMessage());
  }

  @Test
  void aMapLocationOntoAMissingDeviceIsAnError() throws IOException {
    Path file = dir.resolve("cpu.safetensors");
    Checkpoint.save(file, new TinyNet(), null);
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> Checkpoint.load(file, MapLocation.to(Device.cuda(7))));
    assertTrue(
        e.getMessage()
            .startsWith(file + ": to(cuda:7) puts tensors on cuda:7, which does not exist here"),
        e.getMessage());
    assertThrows(NullPointerException.class, () -> Checkpoint.load(file, null));
    assertThrows(IllegalArgumentException.class, () -> MapLocation.remap(Map.of()));
  }

  @Test
  void mapLocationsResolveTheCurrentCudaDevice() {
    assertEquals(Device.cuda(0), MapLocation.to(Device.cuda()).target(Device.cuda(1)));
    MapLocation m =
        MapLocation.remap(Map.of(Device.cuda(), Device.cpu(), Device.cpu(), Device.cuda(1)));
    assertEquals(Device.cpu(), m.target(Device.cuda(0)));
    assertEquals(
        Device.cuda(1), m.target(Device.cpu()), "the CPU maps elsewhere when the mapping says so");
    assertThrows(IllegalArgumentException.class, () -> m.target(Device.cuda(2)));
    assertTrue(
        m.toString().startsWith("remap(") && m.toString().contains("cuda:0=cpu"), m.toString());
  }

  // ---------------------------------------------------------------- atomicity and corruption

  @Test
  void aFailureMidWriteLeavesThePreviousCheckpointIntact() throws IOException {
    Path file = dir.resolve("ckpt.safetensors");
    TinyNet model = new TinyNet();
    Checkpoint.save(file, model, null);
    byte[] before = Files.readAllBytes(file);

    // A tensor whose device was switched off cannot be read: the save fails after the header and
    // the first tensor's data were written to the temporary file.
    Tensor unreadable;
    try (EmulatedCuda.Installation ignored = EmulatedCuda.install(1)) {
      unreadable = Tensor.ones(Shape.of(1000), Device.cuda(0));
    }
    Map<String, Tensor> state = new LinkedHashMap<>();
    state.put("a", Tensor.randn(1000, 100));
    state.put("z", unreadable);
    SafetensorsException e =
        assertThrows(SafetensorsException.class, () -> Checkpoint.save(file, state, null));
    assertTrue(e.getMessage().startsWith(file + ": "), e.getMessage());
    assertTrue(e.getMessage().contains("reading tensor 'z'"), e.getMessage());
    assertArrayEquals(before, Files.readAllBytes(file), "the previous checkpoint is untouched");
    assertEquals(List.of("ckpt.safetensors"), listDir(), "no temporary file is left");

    // A failure before writing (a reserved name) leaves everything as it was too.
    assertThrows(
        IllegalArgumentException.class,
        () -> Checkpoint.save(file, Map.of("optimizer/x", Tensor.ones(1)), null));
    assertArrayEquals(before, Files.readAllBytes(file));
    assertEquals(List.of("ckpt.safetensors"), listDir());

    // A successful save replaces the file.
    TinyNet other = new TinyNet();
    Checkpoint.save(file, other, null);
    assertEquals(List.of("ckpt.safetensors"), listDir());
    assertArrayEquals(
        other.fc.weight().toFloatArray(),
        Checkpoint.load(file, MapLocation.to(Device.cpu()))
            .stateDict()
            .get("fc.weight")
            .toFloatArray());
  }

  @Test
  void savingIntoAMissingFolderFailsWithoutLeavingAnything() {
    Path file = dir.resolve("missing/ckpt.safetensors");
    NoSuchFileException e =
        assertThrows(NoSuchFileException.class, () -> Checkpoint.save(file, new TinyNet(), null));
    assertEquals(
        file
            + ": the folder "
            + file.toAbsolutePath().getParent()
            + " does not exist; create it first",
        e.getMessage());
    assertFalse(Files.exists(dir.resolve("missing")));
  }

  @Test
  void aFailureToWriteNamesTheCheckpointNotItsTemporaryFile() throws IOException {
    Path file = dir.resolve("ckpt.safetensors");
    Checkpoint.save(file, new TinyNet(), null);
    Path blocker = dir.resolve("blocked");
    Files.writeString(blocker, "a file, not a folder");
    Path inside = blocker.resolve("ckpt.safetensors");
    NoSuchFileException notAFolder =
        assertThrows(NoSuchFileException.class, () -> Checkpoint.save(inside, new TinyNet(), null));
    assertTrue(notAFolder.getMessage().startsWith(inside.toString()), notAFolder.getMessage());
    Path folderAsTarget = Files.createDirectory(dir.resolve("taken.safetensors"));
    Files.writeString(folderAsTarget.resolve("x"), "keeps the folder from being replaced");
    IOException taken =
        assertThrows(IOException.class, () -> Checkpoint.save(folderAsTarget, new TinyNet(), null));
    assertTrue(
        taken.getMessage().startsWith(folderAsTarget + ": not written ("), taken.getMessage());
    assertTrue(
        taken.getMessage().endsWith("; the file there before, if any, is untouched"),
        taken.getMessage());
    assertEquals(
        List.of("blocked", "ckpt.safetensors", "taken.safetensors"),
        listDir(),
        "no temporary file left");
  }

  @Test
  void truncatedOrCorruptedCheckpointsNameTheFileAndTheProblem() throws IOException {
    Path file = dir.resolve("ckpt.safetensors");
    TinyNet model = new TinyNet();
    Checkpoint.save(file, model, new Momentum(model.parameters(), 0.1, 0.9));
    byte[] good = Files.readAllBytes(file);

    Path truncated =
        Files.write(dir.resolve("truncated.safetensors"), Arrays.copyOf(good, good.length - 3));
    SafetensorsException cut =
        assertThrows(
            SafetensorsException.class,
            () -> Checkpoint.load(truncated, MapLocation.to(Device.cpu())));
    assertTrue(cut.getMessage().startsWith(truncated + ": truncated"), cut.getMessage());

    byte[] flipped = good.clone();
    flipped[8] = '[';
    Path corrupt = Files.write(dir.resolve("corrupt.safetensors"), flipped);
    SafetensorsException bad =
        assertThrows(
            SafetensorsException.class,
            () -> Checkpoint.load(corrupt, MapLocation.to(Device.cpu())));
    assertTrue(bad.getMessage().startsWith(corrupt + ": invalid header"), bad.getMessage());

    Path empty = Files.write(dir.resolve("empty.safetensors"), new byte[0]);
    assertThrows(
        SafetensorsException.class, () -> Checkpoint.load(empty, MapLocation.to(Device.cpu())));
  }

  @Test
  void badDeviceEntriesAndNewerLayoutsAreReported() throws IOException {
    Path file = dir.resolve("odd.safetensors");
    Safetensors.save(
        Map.of("w", Tensor.ones(2)), Map.of("ondevice/checkpoint", "1", "device/w", "gpu:0"), file);
    SafetensorsException device =
        assertThrows(
            SafetensorsException.class, () -> Checkpoint.load(file, MapLocation.to(Device.cpu())));
    assertTrue(device.getMessage().contains("device/w=gpu:0 is not a device"), device.getMessage());

    Safetensors.save(Map.of("w", Tensor.ones(2)), Map.of("ondevice/checkpoint", "2"), file);
    SafetensorsException version =
        assertThrows(
            SafetensorsException.class, () -> Checkpoint.load(file, MapLocation.to(Device.cpu())));
    assertTrue(version.getMessage().contains("layout version 2"), version.getMessage());
  }
}
