package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.List;

/**
 * DIDgen ({@code didgen/inverter.py}): inverts a trained property-prediction GNN by gradient
 * descent on a molecule's node features and adjacency vector. {@code invert} starts from a dataset
 * molecule moved to the device ({@code start_from(dataset[qmid].to(device), config)}), masks part
 * of the empty adjacency entries, and optimizes towards the target property.
 *
 * <p>Source: https://github.com/ftherrien/inv-design/pull/3
 *
 * <p>Bug: {@code mask_mask = (torch.rand(mask.shape) > 0.15)} is drawn on the CPU while {@code mask =
 * (adj_vec == 0)} is on the GPU, so {@code ~(mask * mask_mask)} raises "Expected all tensors to be
 * on the same device"; fixed with {@code .to(device)}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class DidgenInverterMaskMaskOnCpu {
  private DidgenInverterMaskMaskOnCpu() {}

  /** The trained property predictor, reduced to a dense graph convolution and a readout. */
  static final class SimpleNet extends Model {
    final Linear conv = new Linear(5, 16);
    final Linear readout = new Linear(16, 1);

    Tensor forward(Tensor feaH, Tensor adj) {
      Tensor h = adj.matmul(conv.forward(feaH)).relu();
      return readout.forward(h.mean(0)).squeeze(0);
    }
  }

  static final class Config {
    Tensor adjMask;
    final int nIter = 3;
    final double lr = 0.05;
    final long nNodes = 6;
  }

  /** Symmetric adjacency matrix from its upper-triangle vector. */
  static Tensor vecToAdj(Tensor adjVec, Tensor rows, Tensor cols, long n) {
    Tensor adj = Tensor.zeros(Shape.of(n * n), adjVec.device());
    Tensor onehotRows = Tensor.oneHot(rows.mul(n).add(cols), (int) (n * n)).to(adjVec.dtype());
    Tensor onehotCols = Tensor.oneHot(cols.mul(n).add(rows), (int) (n * n)).to(adjVec.dtype());
    adj = adj.add(adjVec.unsqueeze(0).matmul(onehotRows.add(onehotCols)).squeeze(0));
    return adj.view(n, n);
  }

  static Parameter[] startFrom(Tensor[] molecule, Config config) {
    Parameter feaH = new Parameter(molecule[0].clone());
    Parameter adjVec = new Parameter(molecule[1].clone());
    return new Parameter[] {feaH, adjVec};
  }

  static Tensor invert(SimpleNet model, Tensor[] dataset, Tensor rows, Tensor cols, double target,
      Config config, Device device) {
    Tensor[] molecule = new Tensor[] {dataset[0].to(device), dataset[1].to(device)};
    Parameter[] start = startFrom(molecule, config);
    Parameter feaH = start[0];
    Parameter adjVec = start[1];

    Tensor mask = adjVec.eq(0);
    Tensor maskMask = Tensor.rand(mask.shape()).gt(0.15); // bug: in-method
    config.adjMask = mask.logicalAnd(maskMask).logicalNot(); // same bug

    Adam optimizer = new Adam(List.of(feaH, adjVec), config.lr);
    for (int i = 0; i < config.nIter; i++) {
      Tensor maskedVec = adjVec.mul(config.adjMask.to(adjVec.dtype()));
      Tensor adj = vecToAdj(maskedVec, rows, cols, config.nNodes);
      Tensor pred = model.forward(feaH, adj);
      Tensor loss = pred.sub(target).square();
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
    return adjVec.detach();
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    SimpleNet model = new SimpleNet();
    model.toDevice(device);
    model.eval();
    Config config = new Config();
    long n = config.nNodes;
    long[] r = new long[(int) (n * (n - 1) / 2)];
    long[] c = new long[r.length];
    int k = 0;
    for (int i = 0; i < n; i++) {
      for (int j = i + 1; j < n; j++) {
        r[k] = i;
        c[k] = j;
        k++;
      }
    }
    Tensor rows = Tensor.of(r, Shape.of(r.length), device);
    Tensor cols = Tensor.of(c, Shape.of(c.length), device);
    Tensor[] molecule = {Tensor.rand(Shape.of(n, 5)), Tensor.rand(Shape.of(r.length)).gt(0.6).to(DType.FLOAT32)};
    Tensor adjVec = invert(model, molecule, rows, cols, 1.5, config, device);
    System.out.println(adjVec.shape());
  }
}
