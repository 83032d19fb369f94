package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Model;
import java.util.ArrayList;
import java.util.List;

/**
 * The iterative flow refinement of torchvision's RAFT: the forward builds two pixel-coordinate
 * grids at 1/8 resolution with {@code optical_flow._utils.make_coords_grid}, then updates
 * {@code coords1} a few times from the hidden state, the context and the current flow.
 *
 * <p>Source: https://github.com/pytorch/vision/pull/8500
 *
 * <p>Bug: {@code make_coords_grid(batch_size, h, w, device="cpu")} allocates the grids on the CPU
 * by default and {@code RAFT.forward} converts them with {@code .to(fmap1.device)}: two
 * host-to-device copies per forward (the PR passes the device and measured 25% off the forward).
 * (The correlation pyramid and the mask predictor are left out.)
 *
 * <p>Outcome: completes (costs time)
 */
public final class TorchvisionRaftCoordsGridCopy {
  private TorchvisionRaftCoordsGridCopy() {}

  /** torchvision/models/optical_flow/_utils.py. */
  static final class Utils {
    private Utils() {}

    static Tensor makeCoordsGrid(long batchSize, long h, long w) {
      return makeCoordsGrid(batchSize, h, w, Device.cpu()); // device: str = "cpu"
    }

    static Tensor makeCoordsGrid(long batchSize, long h, long w, Device device) {
      Tensor ys = Tensor.arange(h, device).view(h, 1).expand(h, w);
      Tensor xs = Tensor.arange(w, device).view(1, w).expand(h, w);
      Tensor coords = Tensor.stack(List.of(xs, ys), 0).to(DType.FLOAT32);
      return coords.unsqueeze(0).expand(batchSize, 2, h, w).contiguous();
    }
  }

  /** RAFT with small encoders and update block. */
  static final class Raft extends Model {
    final int hidden = 8;
    final Conv2d featureEncoder = new Conv2d(3, 16, 8, 8, 0, true);
    final Conv2d contextEncoder = new Conv2d(3, 16, 8, 8, 0, true);
    final Conv2d gru = new Conv2d(8 + 8 + 2, 8, 3, 1, 1, true);
    final Conv2d flowHead = new Conv2d(8, 2, 3, 1, 1, true);

    List<Tensor> forward(Tensor image1, Tensor image2, int numFlowUpdates) {
      long batchSize = image1.size(0);
      long h = image1.size(2);
      long w = image1.size(3);
      Tensor fmap1 = featureEncoder.forward(image1);
      Tensor contextOut = contextEncoder.forward(image1);
      Tensor hiddenState = contextOut.narrow(1, 0, hidden).tanh();
      Tensor context = contextOut.narrow(1, hidden, 16 - hidden).relu();

      Tensor coords0 = Utils.makeCoordsGrid(batchSize, h / 8, w / 8).to(fmap1.device()); // bug: across-methods
      Tensor coords1 = Utils.makeCoordsGrid(batchSize, h / 8, w / 8).to(fmap1.device()); // bug: across-methods

      List<Tensor> flowPredictions = new ArrayList<>();
      for (int i = 0; i < numFlowUpdates; i++) {
        coords1 = coords1.detach();
        Tensor flow = coords1.sub(coords0);
        hiddenState = gru.forward(Tensor.cat(List.of(hiddenState, context, flow), 1)).tanh();
        Tensor deltaFlow = flowHead.forward(hiddenState);
        coords1 = coords1.add(deltaFlow);
        flowPredictions.add(coords1.sub(coords0));
      }
      return flowPredictions;
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Raft raft = new Raft();
    raft.toDevice(device);
    for (int step = 0; step < 2; step++) {
      Tensor image1 = Tensor.rand(Shape.of(2, 3, 32, 32), device);
      Tensor image2 = Tensor.rand(Shape.of(2, 3, 32, 32), device);
      List<Tensor> predictions = raft.forward(image1, image2, 3);
      predictions.get(predictions.size() - 1).abs().mean().backward();
    }
  }
}
