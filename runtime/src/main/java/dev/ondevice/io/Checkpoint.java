package dev.ondevice.io;

import dev.ondevice.Cuda;
import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.KeepsDevice;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.StateDictException;
import dev.ondevice.optim.Optimizer;
import dev.ondevice.optim.OptimizerState;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A model's state dict and, optionally, an optimizer's state, saved together in one safetensors
 * file: PyTorch's {@code torch.save({'model': ..., 'optimizer': ...})} and {@code torch.load(path,
 * map_location=device)}, in a format other tools read.
 *
 * <pre>{@code
 * Checkpoint.save(path, model, optimizer);                                  // atomic
 * Checkpoint.restore(path, model, optimizer, MapLocation.to(device));       // strict
 * Checkpoint c = Checkpoint.load(path, MapLocation.to(Device.cpu()));      // just read it
 * }</pre>
 *
 * <p><b>The file</b> is plain safetensors ({@link Safetensors}): the model's tensors under their
 * state-dict names ({@code fc1.weight}), so that {@code safetensors.torch.load_file} gives the
 * state dict; the optimizer's tensors under {@value #OPTIMIZER_PREFIX}{@code state.0.momentum}; and
 * in {@code __metadata__}: {@code format=pt} (as {@code safetensors.torch.save_model} writes),
 * {@value #VERSION_KEY}{@code =1}, {@value #HAS_OPTIMIZER_KEY}{@code =true|false}, the optimizer's
 * metadata under {@value #OPTIMIZER_PREFIX} ({@code optimizer/type=Sgd}, {@code optimizer/lr=0.1},
 * ...), and each tensor's device under {@value #DEVICE_PREFIX} ({@code device/fc1.weight=cuda:0}),
 * which {@link MapLocation#remap} maps; and a CRC-32C of the whole checkpoint ({@code
 * ondevice/crc32c}), which every load verifies.
 *
 * <p><b>Saving is atomic</b>: the file is written next to its destination under a temporary name,
 * flushed to disk and renamed over the destination, so a crash or an error mid-save leaves the
 * previous checkpoint intact (and no temporary file behind; the temporary file of a save that was
 * killed is removed by the next save to the same file, once stale).
 *
 * <p><b>Loading always takes a {@link MapLocation}</b>; there is no overload without one. A file
 * without device entries (one written by PyTorch) counts as saved on the CPU.
 */
public final class Checkpoint {
  /** The prefix of the optimizer's tensor names and metadata keys in the file. */
  public static final String OPTIMIZER_PREFIX = "optimizer/";

  /** The prefix of the metadata keys that record each tensor's device. */
  public static final String DEVICE_PREFIX = "device/";

  /** The metadata key of this checkpoint layout's version. */
  public static final String VERSION_KEY = "ondevice/checkpoint";

  /** The metadata key that says whether the file holds an optimizer's state. */
  public static final String HAS_OPTIMIZER_KEY = "ondevice/optimizer";

  private static final String VERSION = "1";

  private final Path file;
  private final Map<String, Tensor> stateDict;
  private final OptimizerState optimizerState;

  private Checkpoint(Path file, Map<String, Tensor> stateDict, OptimizerState optimizerState) {
    this.file = file;
    this.stateDict = Collections.unmodifiableMap(stateDict);
    this.optimizerState = optimizerState;
  }

  // ---------------------------------------------------------------- saving

  /**
   * Saves {@code model}'s state dict and, unless {@code optimizer} is null, its state, to {@code
   * file}, atomically.
   *
   * @throws IllegalArgumentException if a state-dict name starts with {@value #OPTIMIZER_PREFIX}
   *     (reserved); nothing is written then
   * @throws IOException naming the file if writing failed; the previous file is then untouched
   */
  public static void save(Path file, @KeepsDevice Model model, Optimizer optimizer)
      throws IOException {
    Objects.requireNonNull(model, "Checkpoint.save: model is null");
    save(file, model.stateDict(), optimizer == null ? null : optimizer.stateDict());
  }

  /**
   * Saves a state dict and, unless {@code optimizerState} is null, an optimizer's state, to {@code
   * file}, atomically.
   *
   * @throws IllegalArgumentException if a state-dict name starts with {@value #OPTIMIZER_PREFIX}
   *     (reserved); nothing is written then
   * @throws IOException naming the file if writing failed; the previous file is then untouched
   */
  public static void save(Path file, Map<String, Tensor> stateDict, OptimizerState optimizerState)
      throws IOException {
    Objects.requireNonNull(file, "Checkpoint.save: file is null");
    Objects.requireNonNull(stateDict, "Checkpoint.save: stateDict is null");
    Map<String, Tensor> tensors = new LinkedHashMap<>();
    Map<String, String> metadata = new LinkedHashMap<>();
    metadata.put("format", "pt");
    metadata.put(VERSION_KEY, VERSION);
    metadata.put(HAS_OPTIMIZER_KEY, Boolean.toString(optimizerState != null));
    for (Map.Entry<String, Tensor> e : stateDict.entrySet()) {
      String name = e.getKey();
      if (name != null && name.startsWith(OPTIMIZER_PREFIX)) {
        throw new IllegalArgumentException(
            "Checkpoint.save("
                + file
                + "): the state-dict name '"
                + name
                + "' starts"
                + " with '"
                + OPTIMIZER_PREFIX
                + "', which is reserved for the optimizer's state");
      }
      put(tensors, metadata, name, e.getValue());
    }
    if (optimizerState != null) {
      for (Map.Entry<String, Tensor> e : optimizerState.tensors().entrySet()) {
        put(tensors, metadata, OPTIMIZER_PREFIX + e.getKey(), e.getValue());
      }
      for (Map.Entry<String, String> e : optimizerState.metadata().entrySet()) {
        metadata.put(OPTIMIZER_PREFIX + e.getKey(), e.getValue());
      }
    }
    Safetensors.save(tensors, metadata, file, true);
  }

  private static void put(
      Map<String, Tensor> tensors, Map<String, String> metadata, String name, Tensor t) {
    tensors.put(name, t);
    if (name != null && t != null) {
      metadata.put(DEVICE_PREFIX + name, t.device().toString());
    }
  }

  // ---------------------------------------------------------------- loading

  /**
   * Reads the checkpoint {@code file}, putting each tensor where {@code location} says. Reads any
   * safetensors file: one without this layout's metadata is a state dict saved on the CPU.
   *
   * @throws SafetensorsException naming the file, if it is not a valid checkpoint (truncated,
   *     corrupted, a bad device entry, a newer layout version)
   * @throws IllegalArgumentException naming the file and the device, if {@code location} does not
   *     map a device a tensor was saved on
   * @throws IllegalStateException naming the file, if {@code location} maps a tensor to a device
   *     that does not exist here
   * @throws IOException if the file cannot be read
   */
  public static Checkpoint load(Path file, MapLocation location) throws IOException {
    Objects.requireNonNull(file, "Checkpoint.load: file is null");
    Objects.requireNonNull(
        location,
        "Checkpoint.load: the map location is null; pass MapLocation.to(device) or"
            + " MapLocation.remap(...)");
    Safetensors.Contents contents = Safetensors.load(file);
    Map<String, String> metadata = contents.metadata();
    String version = metadata.get(VERSION_KEY);
    if (version != null && !version.equals(VERSION)) {
      throw new SafetensorsException(
          file.toString(),
          "checkpoint layout version "
              + version
              + " ("
              + VERSION_KEY
              + "), this runtime reads version "
              + VERSION);
    }
    boolean hasOptimizer = version != null && Boolean.parseBoolean(metadata.get(HAS_OPTIMIZER_KEY));

    Map<String, Device> targets = new LinkedHashMap<>();
    for (String name : contents.tensors().keySet()) {
      Device saved = savedDevice(file, metadata, name);
      Device target;
      try {
        target = location.target(saved);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            file + ": tensor '" + name + "' was saved on " + saved + ", but " + e.getMessage(), e);
      }
      requireExists(file, location, target);
      targets.put(name, target);
    }

    Map<String, Tensor> stateDict = new LinkedHashMap<>();
    Map<String, Tensor> optimizerTensors = new LinkedHashMap<>();
    for (Map.Entry<String, Tensor> e : contents.tensors().entrySet()) {
      String name = e.getKey();
      Tensor t = e.getValue().to(targets.get(name));
      if (hasOptimizer && name.startsWith(OPTIMIZER_PREFIX)) {
        optimizerTensors.put(name.substring(OPTIMIZER_PREFIX.length()), t);
      } else {
        stateDict.put(name, t);
      }
    }
    OptimizerState optimizerState = null;
    if (hasOptimizer) {
      Map<String, String> optimizerMetadata = new LinkedHashMap<>();
      for (Map.Entry<String, String> e : metadata.entrySet()) {
        if (e.getKey().startsWith(OPTIMIZER_PREFIX)) {
          optimizerMetadata.put(e.getKey().substring(OPTIMIZER_PREFIX.length()), e.getValue());
        }
      }
      optimizerState = new OptimizerState(optimizerTensors, optimizerMetadata);
    }
    return new Checkpoint(file, stateDict, optimizerState);
  }

  /**
   * Loads the checkpoint {@code file} into {@code model} (strictly: every key must match) and,
   * unless {@code optimizer} is null, into {@code optimizer}. Parameters keep their devices and
   * identities; the optimizer's state follows its parameters' devices.
   *
   * @return the checkpoint that was loaded
   * @throws StateDictException if the state dict does not fit the model (nothing is copied then)
   * @throws IllegalArgumentException naming the file, if an optimizer is given but the file holds
   *     no optimizer state (nothing is restored then), or if the optimizer's state does not fit it
   *     (the model has been restored then)
   * @throws IOException and the other exceptions of {@link #load}
   */
  public static Checkpoint restore(
      Path file, @KeepsDevice Model model, Optimizer optimizer, MapLocation location)
      throws IOException {
    Objects.requireNonNull(model, "Checkpoint.restore: model is null");
    Checkpoint c = load(file, location);
    if (optimizer != null && c.optimizerState == null) {
      throw new IllegalArgumentException(
          file
              + ": the checkpoint holds no optimizer state; pass null as the optimizer"
              + " to restore the model alone");
    }
    model.loadStateDict(c.stateDict, true);
    if (optimizer != null) {
      try {
        optimizer.loadStateDict(c.optimizerState);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            file
                + ": the optimizer's state does not fit "
                + optimizer.getClass().getSimpleName()
                + " (the model was restored): "
                + e.getMessage(),
            e);
      }
    }
    return c;
  }

  private static Device savedDevice(Path file, Map<String, String> metadata, String name)
      throws SafetensorsException {
    String spec = metadata.get(DEVICE_PREFIX + name);
    if (spec == null) {
      return Device.cpu();
    }
    try {
      return Device.parse(spec);
    } catch (IllegalArgumentException e) {
      throw new SafetensorsException(
          file.toString(),
          "the device entry "
              + DEVICE_PREFIX
              + name
              + "="
              + spec
              + " is not a device: "
              + e.getMessage(),
          e);
    }
  }

  private static void requireExists(Path file, MapLocation location, Device target) {
    if (target.isCuda() && target.index() >= Cuda.deviceCount()) {
      String here =
          Cuda.isAvailable()
              ? "there "
                  + (Cuda.deviceCount() == 1
                      ? "is 1 CUDA device"
                      : "are " + Cuda.deviceCount() + " CUDA devices")
              : "CUDA is not available (" + Cuda.unavailableReason().orElse("no devices") + ")";
      throw new IllegalStateException(
          file
              + ": "
              + location
              + " puts tensors on "
              + target
              + ", which does not exist"
              + " here: "
              + here);
    }
  }

  // ---------------------------------------------------------------- contents

  /** The file this checkpoint was read from. */
  public Path file() {
    return file;
  }

  /** The model's state dict, by name, on the devices the map location chose. */
  public Map<String, Tensor> stateDict() {
    return stateDict;
  }

  /** The optimizer's state, if the checkpoint holds one. */
  public Optional<OptimizerState> optimizerState() {
    return Optional.ofNullable(optimizerState);
  }
}
