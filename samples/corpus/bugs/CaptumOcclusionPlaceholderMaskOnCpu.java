package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Captum's Occlusion attribution over two input tensors with {@code perturbations_per_eval > 1}:
 * several features are ablated per forward pass, and for each input tensor the masks of the features
 * in the chunk are stacked, a zero placeholder standing for features that belong to another tensor.
 *
 * <p>Source: https://github.com/meta-pytorch/captum/issues/1879
 *
 * <p>Bug: in {@code _construct_ablated_input_across_tensors} the placeholder
 * {@code torch.zeros((1,) + tuple(input_tensor.shape[1:]))} was created on the CPU and appended to
 * {@code tensor_mask} beside masks on the input's device, so {@code torch.stack(tensor_mask)} failed
 * for CUDA inputs.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class CaptumOcclusionPlaceholderMaskOnCpu {
  private CaptumOcclusionPlaceholderMaskOnCpu() {}

  static final class TwoInputModel extends Model {
    final Linear a = new Linear(4, 1);
    final Linear b = new Linear(3, 1);

    Tensor forward(Tensor x1, Tensor x2) {
      return a.forward(x1).add(b.forward(x2)).squeeze(1);
    }
  }

  static final class Occlusion {
    /** _occlusion_mask: ones on the occluded feature, on the input's device, shape (1,) + shape[1:]. */
    static Tensor occlusionMask(Tensor input, int ablatedFeatureNum) {
      return Tensor.arange(input.size(1), input.device()).eq(ablatedFeatureNum).to(DType.INT64).unsqueeze(0);
    }

    static List<Tensor> constructAblatedInputAcrossTensors(List<Tensor> inputs, double baseline,
        List<Integer> featureIdxs, Map<Integer, Integer> featureIdxToTensorIdx, int[] accumulated,
        int currentNumAblatedFeatures) {
      List<Tensor> ablatedInputs = new ArrayList<>();
      for (int i = 0; i < inputs.size(); i++) {
        Tensor inputTensor = inputs.get(i);
        final int tensorIdx = i;
        if (featureIdxs.stream().noneMatch(f -> featureIdxToTensorIdx.get(f) == tensorIdx)) {
          ablatedInputs.add(inputTensor);          // not ablated in this chunk
          continue;
        }
        List<Tensor> tensorMask = new ArrayList<>();
        for (int featureIdx : featureIdxs) {
          if (featureIdxToTensorIdx.get(featureIdx) != i) {
            tensorMask.add(Tensor.zeros(1, inputTensor.size(1))); // bug: held-outside-models
            continue;
          }
          tensorMask.add(occlusionMask(inputTensor, featureIdx - accumulated[i]));
        }
        Tensor currentMask = Tensor.stack(tensorMask, 0);
        Tensor ablated = inputTensor.clone().reshape(currentNumAblatedFeatures, -1, inputTensor.size(1));
        ablated = ablated.mul(currentMask.rsub(1).to(inputTensor.dtype()))
            .add(currentMask.to(inputTensor.dtype()).mul(baseline));
        ablatedInputs.add(ablated.reshape(inputTensor.shape()));
      }
      return ablatedInputs;
    }

    static Tensor[] attribute(TwoInputModel model, Tensor x1, Tensor x2, int perturbationsPerEval) {
      Map<Integer, Integer> featureIdxToTensorIdx = new TreeMap<>();
      for (int f = 0; f < 7; f++) {
        featureIdxToTensorIdx.put(f, f < 4 ? 0 : 1);
      }
      int[] accumulated = {0, 4};
      Tensor base = model.forward(x1, x2);
      Tensor[] attributions = {Tensor.zerosLike(x1), Tensor.zerosLike(x2)};
      for (int start = 0; start < 7; start += perturbationsPerEval) {
        List<Integer> featureIdxs = new ArrayList<>();
        for (int f = start; f < Math.min(7, start + perturbationsPerEval); f++) {
          featureIdxs.add(f);
        }
        int n = featureIdxs.size();
        List<Tensor> expanded = List.of(x1.expand(n, x1.size(0), 4).reshape(-1, 4),
            x2.expand(n, x2.size(0), 3).reshape(-1, 3));
        List<Tensor> ablated = constructAblatedInputAcrossTensors(expanded, 0.0, featureIdxs,
            featureIdxToTensorIdx, accumulated, n);
        Tensor diff = base.unsqueeze(0).expand(n, base.size(0)).reshape(-1).sub(model.forward(ablated.get(0), ablated.get(1)));
        attributions[0] = attributions[0].add(diff.sum());
      }
      return attributions;
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    TwoInputModel model = new TwoInputModel();
    model.toDevice(device);
    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Occlusion.attribute(model, Tensor.randn(2, 4, device), Tensor.randn(2, 3, device), 3);
    }
  }
}
