package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * MatterSim's {@code forcefield/potential.py}: {@code batch_to_dict(graph_batch, model_type,
 * device)} unpacks a converted graph batch into the input dictionary of {@code
 * Potential.forward}; wrappers outside MatterSim (the reporter's model wrapper) convert structures
 * to a graph batch on the host and call it with their model's device.
 *
 * <p>Source: https://github.com/microsoft/mattersim/issues/113 (fixed by
 * https://github.com/microsoft/mattersim/pull/147, commit cc84ddc)
 *
 * <p>Bug: {@code batch_to_dict} takes a {@code device} argument but never uses it, so every tensor
 * of the dictionary stays where the graph batch was built; the fix adds {@code .to(device)} to each
 * tensor taken from the batch and creates {@code num_graphs} on {@code device}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class MattersimBatchToDictIgnoresDevice {
  private MattersimBatchToDictIgnoresDevice() {}

  /** A {@code torch_geometric} batch of atomic graphs, built on the host by the graph converter. */
  record GraphBatch(Tensor atomPos, Tensor atomAttr, Tensor edgeIndex, Tensor batch, int numGraphs) {}

  /** Module-level helpers of {@code potential.py}. */
  static final class PotentialUtils {
    static Map<String, Tensor> batchToDict(GraphBatch graphBatch, String modelType, Device device) {
      if (!modelType.equals("m3gnet")) {
        throw new UnsupportedOperationException(modelType);
      }
      Tensor atomPos = graphBatch.atomPos(); // bug: across-methods
      Tensor atomAttr = graphBatch.atomAttr(); // bug: across-methods
      Tensor edgeIndex = graphBatch.edgeIndex(); // bug: across-methods
      Tensor numGraphs = Tensor.scalar((long) graphBatch.numGraphs()); // same bug
      Tensor batch = graphBatch.batch(); // bug: across-methods

      // Resemble input dictionary
      Map<String, Tensor> input = new HashMap<>();
      input.put("atom_pos", atomPos);
      input.put("atom_attr", atomAttr);
      input.put("edge_index", edgeIndex);
      input.put("num_graphs", numGraphs);
      input.put("batch", batch);
      return input;
    }
  }

  /** M3GNet reduced to an atom embedding, a distance expansion on the edges and a per-graph sum. */
  static final class Potential extends Model {
    final Linear atomEmbedding = new Linear(4, 16);
    final Linear edgeMlp = new Linear(1, 16);
    final Linear readout = new Linear(16, 1);

    Tensor forward(Map<String, Tensor> input, int numGraphs) {
      Tensor pos = input.get("atom_pos");
      Tensor src = input.get("edge_index").select(0, 0);
      Tensor dst = input.get("edge_index").select(0, 1);
      Tensor dist = pos.indexSelect(0, src).sub(pos.indexSelect(0, dst)).square().sum(1, true).sqrt();
      Tensor atomFea = atomEmbedding.forward(input.get("atom_attr")).relu(); // same bug
      Tensor edgeFea = edgeMlp.forward(dist).tanh().mul(atomFea.indexSelect(0, src));
      Tensor messages = Tensor.oneHot(dst, (int) pos.size(0)).to(DType.FLOAT32).t().matmul(edgeFea);
      Tensor atomEnergy = readout.forward(atomFea.add(messages));
      Tensor graphOf = Tensor.oneHot(input.get("batch"), numGraphs).to(DType.FLOAT32);
      return graphOf.t().matmul(atomEnergy).squeeze(-1);
    }
  }

  /** The caller's wrapper: converts the structures on the host, then asks for the model's device. */
  static final class MatterSimModel {
    final Potential model;
    final Device device;

    MatterSimModel(Potential model, Device device) {
      this.model = model;
      this.device = device;
      model.toDevice(device);
    }

    Tensor forward(List<float[][]> structures) {
      GraphBatch graphBatch = convert(structures);
      Map<String, Tensor> input = PotentialUtils.batchToDict(graphBatch, "m3gnet", device);
      return model.forward(input, graphBatch.numGraphs()); // same bug
    }

    /** {@code BatchGraphConverter}: atoms within the cutoff become edges; everything on the host. */
    static GraphBatch convert(List<float[][]> structures) {
      int n = structures.stream().mapToInt(s -> s.length).sum();
      float[][] pos = new float[n][];
      long[] batch = new long[n];
      java.util.List<long[]> edges = new java.util.ArrayList<>();
      int offset = 0;
      for (int g = 0; g < structures.size(); g++) {
        float[][] s = structures.get(g);
        for (int i = 0; i < s.length; i++) {
          pos[offset + i] = s[i];
          batch[offset + i] = g;
          for (int j = 0; j < s.length; j++) {
            if (i != j) {
              edges.add(new long[] {offset + i, offset + j});
            }
          }
        }
        offset += s.length;
      }
      long[] flat = new long[2 * edges.size()];
      for (int e = 0; e < edges.size(); e++) {
        flat[e] = edges.get(e)[0];
        flat[edges.size() + e] = edges.get(e)[1];
      }
      Tensor atomAttr = Tensor.rand(Shape.of(n, 4));
      return new GraphBatch(Tensor.of(pos), atomAttr, Tensor.of(flat, 2, edges.size()), Tensor.of(batch), structures.size());
    }
  }

  public static void run(Device device) {
    MatterSimModel wrapper = new MatterSimModel(new Potential(), device);
    List<float[][]> structures = List.of(
        new float[][] {{0, 0, 0}, {1.2f, 0, 0}, {0, 1.3f, 0}},
        new float[][] {{0, 0, 0}, {0, 0, 1.1f}});
    Tensor energies = wrapper.forward(structures);
    System.out.println("energies: " + energies);
  }
}
