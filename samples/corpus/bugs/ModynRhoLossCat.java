package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Reduction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * modyn's {@code RemoteRHOLossDownsampling}: the trainer informs the downsampler of every batch
 * (sample ids, inputs, outputs, targets); it keeps the RHO loss (training loss minus irreducible
 * loss) of every sample seen in a tensor field and finally selects the samples with the largest
 * values.
 *
 * <p>Source: https://github.com/eth-easl/modyn/pull/525
 *
 * <p>Bug: the field starts as {@code self.rho_loss = torch.tensor([])}, on the CPU; the first
 * {@code torch.cat([self.rho_loss, training_loss - irreducible_loss])} meets the GPU losses ("The
 * initial tensor resides on CPU ... the CPU (initial tensor) and the GPU (training loss and IR
 * loss)").
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class ModynRhoLossCat {
  private ModynRhoLossCat() {}

  /** Holds the irreducible-loss model, on the training device. */
  static final class IrreducibleLossProducer {
    final Linear ilModel = new Linear(6, 4);
    final CrossEntropyLoss perSampleLoss = new CrossEntropyLoss(Reduction.NONE);

    IrreducibleLossProducer(Device device) {
      ilModel.toDevice(device);
    }

    Tensor getIrreducibleLoss(List<Long> sampleIds, Tensor forwardInput, Tensor target) {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        return perSampleLoss.forward(ilModel.forward(forwardInput), target);
      }
    }
  }

  static final class RemoteRhoLossDownsampling {
    final CrossEntropyLoss perSampleLossFct;
    final IrreducibleLossProducer irreducibleLossProducer;
    final int downsamplingRatio = 50;
    List<Long> indexSampleidMap = new ArrayList<>();
    Tensor rhoLoss = Tensor.of(new float[0]); // bug: held-outside-models
    int numberOfPointsSeen = 0;

    RemoteRhoLossDownsampling(CrossEntropyLoss perSampleLoss, Device device) {
      this.perSampleLossFct = perSampleLoss;
      this.irreducibleLossProducer = new IrreducibleLossProducer(device);
    }

    void informSamples(List<Long> sampleIds, Tensor forwardInput, Tensor forwardOutput, Tensor target) {
      Tensor trainingLoss = perSampleLossFct.forward(forwardOutput, target).detach();
      indexSampleidMap.addAll(sampleIds);
      Tensor irreducibleLoss = irreducibleLossProducer.getIrreducibleLoss(sampleIds, forwardInput, target);
      rhoLoss = Tensor.cat(List.of(rhoLoss, trainingLoss.sub(irreducibleLoss))).to(trainingLoss.dtype());
      numberOfPointsSeen += forwardOutput.size(0);
    }

    List<Long> selectPoints() {
      int targetSize = Math.max(downsamplingRatio * numberOfPointsSeen / 100, 1);
      float[] values = rhoLoss.toFloatArray();
      Integer[] order = new Integer[values.length];
      Arrays.setAll(order, i -> i);
      Arrays.sort(order, Comparator.comparingDouble(i -> -values[i]));   // torch.topk(self.rho_loss, target_size)
      Integer[] selected = Arrays.copyOf(order, targetSize);
      Arrays.sort(selected);
      List<Long> selectedSampleIds = new ArrayList<>();
      for (int i : selected) {
        selectedSampleIds.add(indexSampleidMap.get(i));
      }
      return selectedSampleIds;
    }
  }

  /** Runs the program with small random data on {@code device}: the trainer's downsampling pass. */
  public static void run(Device device) throws Exception {
    Linear model = new Linear(6, 4);
    model.toDevice(device);
    RemoteRhoLossDownsampling downsampler = new RemoteRhoLossDownsampling(new CrossEntropyLoss(Reduction.NONE), device);
    TensorDataset data = new TensorDataset(Tensor.randn(8, 6), Tensor.randint(0, 4, Shape.of(8)));
    long nextId = 0;
    for (Batch b : DataLoader.builder(data).batchSize(4).build()) {
      List<Long> sampleIds = new ArrayList<>();
      for (int i = 0; i < b.size(); i++) {
        sampleIds.add(nextId++);
      }
      Tensor input = b.inputs().to(device);
      Tensor target = b.targets().to(device);
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        Tensor output = model.forward(input);
        downsampler.informSamples(sampleIds, input, output, target);
      }
    }
    System.out.println("selected " + downsampler.selectPoints());
  }
}
