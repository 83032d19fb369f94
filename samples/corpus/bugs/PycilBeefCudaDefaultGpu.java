package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.ArrayList;
import java.util.List;

/**
 * PyCIL's BEEF network for class-incremental learning: after the first task, {@code forward} merges
 * the old classifier with the new one, padding the old weights with zeros for the new feature
 * columns. The run is configured for the second GPU ({@code "device": ["1"]}).
 *
 * <p>Source: https://github.com/LAMDA-CL/PyCIL/issues/60
 *
 * <p>Bug: {@code torch.cat([self.old_fc.weight, torch.zeros((new_task_size, ...)).cuda()], dim=0)}:
 * {@code .cuda()} puts the zeros on the current default GPU, cuda:0, while the network lives on
 * cuda:1.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class PycilBeefCudaDefaultGpu {
  private PycilBeefCudaDefaultGpu() {}

  static final class BeefIsoNet extends Model {
    final int outDim = 8;
    List<Linear> convnets = new ArrayList<>();
    Linear oldFc;
    Linear newFc;
    Linear backwardPrototypes;
    final List<Integer> taskSizes = new ArrayList<>();

    int featureDim() {
      return outDim * convnets.size();
    }

    Tensor forward(Tensor x) {
      List<Tensor> features = new ArrayList<>();
      for (Linear convnet : convnets) {
        features.add(convnet.forward(x).relu());
      }
      Tensor feats = Tensor.cat(features, 1);
      if (oldFc == null) {
        return newFc.forward(feats);
      }
      // merge the weights
      int newTaskSize = taskSizes.get(taskSizes.size() - 1);
      Tensor fcWeight = Tensor.cat(List.of(oldFc.weight(), Tensor.zeros(newTaskSize, featureDim() - outDim).cuda()), 0); // bug: in-method
      Tensor newFcWeight = Tensor.cat(List.of(backwardPrototypes.weight(), newFc.weight()), 0);
      Tensor newFcBias = Tensor.cat(List.of(backwardPrototypes.bias(), newFc.bias()), 0);
      fcWeight = Tensor.cat(List.of(fcWeight, newFcWeight), 1);
      return feats.matmul(fcWeight.permute(1, 0)).add(newFcBias);
    }

    /** update_fc_before: a new feature extractor and a new head for the new task's classes. */
    void updateFcBefore(int nbClasses, Device device) {
      int seen = taskSizes.stream().mapToInt(Integer::intValue).sum();
      int newTaskSize = nbClasses - seen;
      convnets.add(new Linear(10, outDim, device));
      if (newFc != null) {
        backwardPrototypes = new Linear(outDim, seen, device);
      }
      newFc = new Linear(outDim, newTaskSize, device);
      taskSizes.add(newTaskSize);
    }

    /** update_fc_after (simplified): the merged old classifier becomes old_fc. */
    void updateFcAfter(Device device) {
      oldFc = oldFc == null ? newFc : new Linear(featureDim(), taskSizes.stream().mapToInt(Integer::intValue).sum(), device);
    }
  }

  static void trainTask(BeefIsoNet network, int nbClasses, Device device) {
    CrossEntropyLoss loss = new CrossEntropyLoss();
    for (int i = 0; i < 2; i++) {
      Tensor inputs = Tensor.randn(6, 10, device);
      Tensor targets = Tensor.randint(0, nbClasses, Shape.of(6), device);
      loss.forward(network.forward(inputs), targets).backward();
    }
  }

  /** Runs the program with small random data; the configured GPU is the second one. */
  public static void run(Device device) throws Exception {
    Device gpu = device.isCuda() ? Device.cuda(1) : device;     // args["device"] = ["1"]
    BeefIsoNet network = new BeefIsoNet();
    int[] classesPerTask = {4, 7};
    for (int nbClasses : classesPerTask) {
      network.updateFcBefore(nbClasses, gpu);
      network.toDevice(gpu);                                     // self._network.to(self._device)
      trainTask(network, nbClasses, gpu);
      network.updateFcAfter(gpu);
    }
  }
}
