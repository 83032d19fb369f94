package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.AdamW;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * fairchem's base trainer: per-element linear references ({@code LinearReferences} modules with an
 * {@code element_references} buffer) are trainer attributes in {@code self.elementrefs}, not part of
 * the model; targets are dereferenced with them each step ({@code target.index_add(0, batch.batch,
 * element_references[atomic_numbers], alpha=-1)}) and they are saved in the checkpoint.
 * {@code load_checkpoint} loads the checkpoint and rebuilds the references from it.
 *
 * <p>Source: https://github.com/facebookresearch/fairchem/pull/813 ("load linref and normalizer on
 * cuda device when resuming from checkpoint")
 *
 * <p>Bug: {@code load_checkpoint} loaded the checkpoint with the CPU as {@code map_location}, so the
 * rebuilt element references and normalizers of a resumed run stayed on the CPU while the targets
 * are on the GPU; the fix maps to {@code self.device} ({@code map_location = torch.device("cpu") if
 * self.cpu else self.device}).
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class FairchemElementRefsResumeOnCpu {
  private FairchemElementRefsResumeOnCpu() {}

  /** core/modules/normalization/element_references.py LinearReferences. */
  static final class LinearReferences extends Model {
    @Buffer Tensor elementReferences;

    LinearReferences(Tensor elementReferences, int maxNumElements) {
      this.elementReferences = elementReferences != null ? elementReferences : Tensor.zeros(maxNumElements + 1);
    }

    /** _apply_refs; {@code index_add} over structures is written as a one-hot matmul. */
    Tensor applyRefs(Tensor target, Tensor atomicNumbers, Tensor batchIndex, double sign) {
      Tensor indices = atomicNumbers.to(elementReferences.device());
      Tensor elemrefs = elementReferences.indexSelect(0, indices).to(target.dtype());
      Tensor perStructure = Tensor.oneHot(batchIndex, (int) target.size(0)).to(target.dtype()).t().matmul(elemrefs); // same bug
      return target.add(perStructure.mul(sign));
    }

    Tensor dereference(Tensor target, Tensor atomicNumbers, Tensor batchIndex) {
      return applyRefs(target, atomicNumbers, batchIndex, -1);
    }
  }

  /** The energy model: per-atom embedding, MLP, sum over each structure's atoms. */
  static final class EnergyModel extends Model {
    final Embedding atomEmbedding = new Embedding(20, 16);
    final Linear energyBlock = new Linear(16, 1);

    Tensor forward(Tensor atomicNumbers, Tensor batchIndex, int numStructures) {
      Tensor perAtom = energyBlock.forward(atomEmbedding.forward(atomicNumbers).tanh()).squeeze(1);
      return Tensor.oneHot(batchIndex, numStructures).to(perAtom.dtype()).t().matmul(perAtom);
    }
  }

  /** core/trainers/base_trainer.py and ocp_trainer.py, reduced to the energy target. */
  static final class OcpTrainer {
    final Device device;
    final EnergyModel model = new EnergyModel();
    final AdamW optimizer;
    final Map<String, LinearReferences> elementrefs = new LinkedHashMap<>();
    final MseLoss loss = new MseLoss();
    int step;

    OcpTrainer(Device device) {
      this.device = device;
      model.toDevice(device);
      optimizer = new AdamW(model.parameters(), 1e-3);
    }

    void loadReferences(Tensor fitted) {
      LinearReferences refs = new LinearReferences(fitted, 19);
      refs.toDevice(device);
      elementrefs.put("energy", refs);
    }

    void trainStep(Tensor atomicNumbers, Tensor batchIndex, Tensor energy) {
      atomicNumbers = atomicNumbers.to(device);
      batchIndex = batchIndex.to(device);
      Tensor target = energy.to(device);
      target = elementrefs.get("energy").dereference(target, atomicNumbers, batchIndex);
      Tensor pred = model.forward(atomicNumbers, batchIndex, (int) target.size(0));
      Tensor l = loss.forward(pred, target);
      optimizer.zeroGrad();
      l.backward();
      optimizer.step();
      step++;
    }

    void saveCheckpoint(Path path) throws Exception {
      Map<String, Tensor> state = new LinkedHashMap<>();
      model.stateDict().forEach((k, v) -> state.put("state_dict." + k, v));
      elementrefs.forEach((key, refs) -> state.put("elementrefs." + key, refs.elementReferences));
      state.put("step", Tensor.scalar((long) step));
      Checkpoint.save(path, state, optimizer.stateDict());
    }

    void loadCheckpoint(Path checkpointPath) throws Exception {
      Checkpoint checkpoint = Checkpoint.load(checkpointPath, MapLocation.to(Device.cpu())); // bug: training-state
      Map<String, Tensor> modelState = new LinkedHashMap<>();
      checkpoint.stateDict().forEach((k, v) -> {
        if (k.startsWith("state_dict.")) {
          modelState.put(k.substring("state_dict.".length()), v);
        } else if (k.startsWith("elementrefs.")) {
          elementrefs.put(k.substring("elementrefs.".length()), new LinearReferences(v, 19));
        }
      });
      model.loadStateDict(modelState, true);
      optimizer.loadStateDict(checkpoint.optimizerState().orElseThrow());
      step = (int) checkpoint.stateDict().get("step").itemAsLong();
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Tensor atomicNumbers = Tensor.randint(1, 20, Shape.of(12));
    Tensor batchIndex = Tensor.of(new long[] {0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3});
    Tensor energy = Tensor.randn(4).mul(5).sub(30);

    OcpTrainer trainer = new OcpTrainer(device);
    trainer.loadReferences(Tensor.randn(20).sub(3).to(DType.FLOAT32));
    trainer.trainStep(atomicNumbers, batchIndex, energy);
    Path path = Files.createTempDirectory("fairchem").resolve("checkpoint.safetensors");
    trainer.saveCheckpoint(path);

    OcpTrainer resumed = new OcpTrainer(device);
    resumed.loadCheckpoint(path);
    resumed.trainStep(atomicNumbers, batchIndex, energy);
  }
}
