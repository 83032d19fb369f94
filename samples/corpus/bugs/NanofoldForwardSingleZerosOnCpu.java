package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * nanofold (a small AlphaFold-style structure model): {@code Nanofold.forward(batch)} embeds the
 * residue features with an {@code InputEmbedding}, starts the single representation at zeros and
 * runs the {@code StructureModule}, whose layers update backbone {@code Frame}s and return the
 * FAPE losses; a {@code Trainer} builds the model, moves it to the configured device and fits it on
 * batches that the {@code ChainDataset} already creates on that device.
 *
 * <p>Source: https://github.com/ogchen/nanofold/commit/88fded7e4ec0a422bc370392c5f63f5fb428082c
 * ("Fix issue with mismatching device")
 *
 * <p>Bug: {@code Nanofold.forward} creates the initial single representation with {@code
 * torch.zeros(*batch["positions"].shape, self.single_embedding_size)}, on the default device; it is
 * handed to {@code StructureModule.forward}, whose CUDA layer norm meets it. The fix passes {@code
 * device=batch["positions"].device}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class NanofoldForwardSingleZerosOnCpu {
  private NanofoldForwardSingleZerosOnCpu() {}

  static final int NUM_RESIDUES = 20;

  /** Rigid frames: rotations [..., 3, 3] and translations [..., 3]. */
  static final class Frame {
    Tensor rotations;
    Tensor translations;

    Frame(Tensor rotations, Tensor translations) {
      this.rotations = rotations;
      this.translations = translations;
    }

    static Frame inverse(Frame frame) {
      Tensor inverseRotations = frame.rotations.transpose(-2, -1);
      Tensor inverseTranslations = inverseRotations.matmul(frame.translations.unsqueeze(-1)).neg();
      return new Frame(inverseRotations, inverseTranslations.squeeze(-1));
    }

    static Frame compose(Frame a, Frame b) {
      Tensor rotations = a.rotations.matmul(b.rotations);
      Tensor translations = Frame.apply(a, b.translations);
      return new Frame(rotations, translations);
    }

    static Tensor apply(Frame frames, Tensor vectors) {
      Tensor result = frames.rotations.matmul(vectors.unsqueeze(-1)).add(frames.translations.unsqueeze(-1));
      return result.squeeze(-1);
    }
  }

  /** The frame-aligned point error between predicted and true frames and coordinates. */
  static Tensor computeFapeLoss(Frame frames, Tensor coords, Frame framesTruth, Tensor coordsTruth, double eps) {
    double lengthScale = 10.0;
    double clamp = 10.0;
    Frame inverse = Frame.inverse(frames);
    inverse.rotations = inverse.rotations.unsqueeze(-3);
    inverse.translations = inverse.translations.unsqueeze(-2);
    Frame inverseTruth = Frame.inverse(framesTruth);
    inverseTruth.rotations = inverseTruth.rotations.unsqueeze(-3);
    inverseTruth.translations = inverseTruth.translations.unsqueeze(-2);
    Tensor globals = Frame.apply(inverse, coords.unsqueeze(-3));
    Tensor globalsTruth = Frame.apply(inverseTruth, coordsTruth.unsqueeze(-3));
    Tensor difference = globals.sub(globalsTruth);
    Tensor squaredNorm = difference.square().sum(-1);
    Tensor norm = squaredNorm.add(eps).sqrt().clampMax(clamp);
    return norm.mean().div(lengthScale);
  }

  static final class InputEmbedding extends Model {
    final int bins;
    final Linear linearA;
    final Linear linearB;
    final Linear linearPosition;

    InputEmbedding(int embeddingSize, int positionBins) {
      this.bins = positionBins;
      this.linearA = new Linear(NUM_RESIDUES, embeddingSize);
      this.linearB = new Linear(NUM_RESIDUES, embeddingSize);
      this.linearPosition = new Linear(2 * positionBins + 1, embeddingSize);
    }

    Tensor forward(Tensor targetFeat, Tensor residueIndex) {
      Tensor a = linearA.forward(targetFeat);
      Tensor b = linearB.forward(targetFeat);
      Tensor z = a.unsqueeze(-2).add(b.unsqueeze(-3));
      Tensor d = residueIndex.unsqueeze(-1).sub(residueIndex.unsqueeze(-2));
      d = d.clamp(-bins, bins).add(bins);
      Tensor p = Tensor.oneHot(d, 2 * bins + 1).to(DType.FLOAT32);
      p = linearPosition.forward(p);
      return z.add(p);
    }
  }

  static final class BackboneUpdate extends Model {
    final Linear linear;

    BackboneUpdate(int singleEmbeddingSize) {
      this.linear = new Linear(singleEmbeddingSize, 3 + 1 + 1 + 1);
    }

    Frame forward(Tensor single) {
      Tensor out = linear.forward(single);
      Tensor bcd = out.slice(-1, 0, 3);
      Tensor a = bcd.square().sum(-1).add(1.0).rsqrt();
      Tensor quaternion = a.unsqueeze(-1).mul(bcd);
      Tensor b = quaternion.select(-1, 0);
      Tensor c = quaternion.select(-1, 1);
      Tensor d = quaternion.select(-1, 2);
      Tensor r0 = Tensor.stack(List.of(
          a.square().add(b.square()).sub(c.square()).sub(d.square()),
          b.mul(c).sub(a.mul(d)).mul(2.0),
          a.mul(c).add(b.mul(d)).mul(2.0)), -1);
      Tensor r1 = Tensor.stack(List.of(
          b.mul(c).add(a.mul(d)).mul(2.0),
          a.square().sub(b.square()).add(c.square()).sub(d.square()),
          c.mul(d).sub(a.mul(b)).mul(2.0)), -1);
      Tensor r2 = Tensor.stack(List.of(
          b.mul(d).sub(a.mul(c)).mul(2.0),
          a.mul(b).add(c.mul(d)).mul(2.0),
          a.square().sub(b.square()).sub(c.square()).add(d.square())), -1);
      Tensor rotations = Tensor.stack(List.of(r0, r1, r2), -2);
      return new Frame(rotations, out.slice(-1, 3, 6));
    }
  }

  /** One structure layer; the invariant point attention is reduced to attention with a pair bias. */
  static final class StructureModuleLayer extends Model {
    final Linear query;
    final Linear key;
    final Linear value;
    final Linear pairBias;
    final BackboneUpdate backboneUpdate;
    final LayerNorm layerNorm1;
    final LayerNorm layerNorm2;
    final Linear linear1;
    final Linear linear2;
    final Linear linear3;

    StructureModuleLayer(int singleEmbeddingSize, int pairEmbeddingSize) {
      this.query = new Linear(singleEmbeddingSize, singleEmbeddingSize);
      this.key = new Linear(singleEmbeddingSize, singleEmbeddingSize);
      this.value = new Linear(singleEmbeddingSize, singleEmbeddingSize);
      this.pairBias = new Linear(pairEmbeddingSize, 1);
      this.backboneUpdate = new BackboneUpdate(singleEmbeddingSize);
      this.layerNorm1 = new LayerNorm(singleEmbeddingSize);
      this.layerNorm2 = new LayerNorm(singleEmbeddingSize);
      this.linear1 = new Linear(singleEmbeddingSize, singleEmbeddingSize);
      this.linear2 = new Linear(singleEmbeddingSize, singleEmbeddingSize);
      this.linear3 = new Linear(singleEmbeddingSize, singleEmbeddingSize);
    }

    Tensor pointAttention(Tensor single, Tensor pair) {
      Tensor q = query.forward(single);
      Tensor k = key.forward(single);
      Tensor scores = q.matmul(k.transpose(-2, -1)).div(Math.sqrt(single.size(-1)));
      scores = scores.add(pairBias.forward(pair).squeeze(-1));
      return scores.softmax(-1).matmul(value.forward(single));
    }

    Object[] forward(Tensor single, Tensor pair, Frame frames, Frame framesTruth) {
      single = single.add(pointAttention(single, pair));
      single = layerNorm1.forward(single);
      single = single.add(linear3.forward(linear2.forward(linear1.forward(single).relu()).relu()));
      single = layerNorm2.forward(single);
      frames = Frame.compose(frames, backboneUpdate.forward(single));
      Tensor loss = framesTruth == null ? null
          : computeFapeLoss(frames, frames.translations, framesTruth, framesTruth.translations, 1e-12);
      return new Object[] {single, frames, loss};
    }
  }

  static final class StructureModule extends Model {
    final List<StructureModuleLayer> layers = new ArrayList<>();
    final LayerNorm singleLayerNorm;
    final LayerNorm pairLayerNorm;
    final Linear singleLinear;

    StructureModule(int numLayers, int singleEmbeddingSize, int pairEmbeddingSize) {
      for (int i = 0; i < numLayers; i++) {
        layers.add(new StructureModuleLayer(singleEmbeddingSize, pairEmbeddingSize));
      }
      this.singleLayerNorm = new LayerNorm(singleEmbeddingSize);
      this.pairLayerNorm = new LayerNorm(pairEmbeddingSize);
      this.singleLinear = new Linear(singleEmbeddingSize, singleEmbeddingSize);
    }

    Tensor[] forward(Tensor single, Tensor pair, Tensor localCoords, Frame framesTruth) {
      long batch = single.size(0);
      long residues = single.size(1);
      single = singleLayerNorm.forward(single); // same bug
      pair = pairLayerNorm.forward(pair);
      single = singleLinear.forward(single);
      Frame frames = new Frame(
          Tensor.eye(3, single.device()).unsqueeze(0).unsqueeze(0).expand(batch, residues, 3, 3),
          Tensor.zeros(Shape.of(batch, residues, 3), single.device()));

      List<Tensor> auxLosses = new ArrayList<>();
      for (int i = 0; i < layers.size(); i++) {
        Object[] out = layers.get(i).forward(single, pair, frames, framesTruth);
        single = (Tensor) out[0];
        frames = (Frame) out[1];
        auxLosses.add((Tensor) out[2]);
        if (i < layers.size() - 1) {
          frames.rotations = frames.rotations.detach();
        }
      }
      Tensor auxLoss = Tensor.stack(auxLosses).mean();
      Tensor fapeLoss = computeFapeLoss(frames, frames.translations, framesTruth, framesTruth.translations, 1e-4);
      Frame batchedFrames = new Frame(frames.rotations.unsqueeze(-3), frames.translations.unsqueeze(-2));
      Tensor coords = Frame.apply(batchedFrames, localCoords);
      return new Tensor[] {coords, fapeLoss, auxLoss};
    }
  }

  static final class Nanofold extends Model {
    final int singleEmbeddingSize;
    final InputEmbedding inputEmbedder;
    final StructureModule structureModule;

    Nanofold(int numLayers, int singleEmbeddingSize, int pairEmbeddingSize, int positionBins) {
      this.singleEmbeddingSize = singleEmbeddingSize;
      this.inputEmbedder = new InputEmbedding(pairEmbeddingSize, positionBins);
      this.structureModule = new StructureModule(numLayers, singleEmbeddingSize, pairEmbeddingSize);
    }

    Tensor[] forward(Map<String, Tensor> batch) {
      Tensor pairRepresentations = inputEmbedder.forward(batch.get("target_feat"), batch.get("positions"));
      Tensor positions = batch.get("positions");
      Tensor singleRepresentations = Tensor.zeros(positions.size(0), positions.size(1), singleEmbeddingSize); // bug: across-methods
      Tensor[] out = structureModule.forward(singleRepresentations, pairRepresentations, batch.get("local_coords"),
          new Frame(batch.get("rotations"), batch.get("translations")));
      return new Tensor[] {out[0], out[1].add(out[2])};
    }
  }

  /** Yields batches of residue crops, created on the configured device. */
  static final class ChainDataset {
    final int residueCropSize;
    final Device device;

    ChainDataset(int residueCropSize, Device device) {
      this.residueCropSize = residueCropSize;
      this.device = device;
    }

    Map<String, Tensor> processBatch(int batchSize) {
      Map<String, Tensor> row = new HashMap<>();
      Shape crop = Shape.of(batchSize, residueCropSize);
      row.put("rotations", Tensor.eye(3, device).expand(batchSize, residueCropSize, 3, 3).contiguous());
      row.put("translations", Tensor.randn(Shape.of(batchSize, residueCropSize, 3), device).mul(3.0));
      Tensor start = Tensor.randint(0, 100, Shape.of(batchSize, 1), device);
      row.put("positions", start.add(Tensor.arange(residueCropSize, device)));
      row.put("target_feat",
          Tensor.oneHot(Tensor.randint(0, NUM_RESIDUES, crop, device), NUM_RESIDUES).to(DType.FLOAT32));
      row.put("local_coords", Tensor.randn(Shape.of(batchSize, residueCropSize, 3, 3), device));
      return row;
    }
  }

  static final class Trainer {
    final Nanofold model;
    final Adam optimizer;

    Trainer(Device device) {
      this.model = new Nanofold(2, 16, 8, 4);
      this.model.toDevice(device);
      this.optimizer = new Adam(model.parameters(), 1e-3).betas(0.9, 0.999).eps(1e-8);
    }

    void trainingLoop(Map<String, Tensor> batch) {
      Tensor loss = model.forward(batch)[1];
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }

    void fit(ChainDataset train, int maxEpoch) {
      for (int epoch = 0; epoch < maxEpoch; epoch++) {
        trainingLoop(train.processBatch(2));
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    ChainDataset train = new ChainDataset(6, device);
    Trainer trainer = new Trainer(device);
    trainer.fit(train, 3);
  }
}
