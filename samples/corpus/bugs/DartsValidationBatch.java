package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;

/**
 * darts' {@code TorchForecastingModel}: {@code _train} moves each training batch with {@code
 * _batch_to_device} and feeds {@code batch[:-1]} to the subclass's {@code _produce_train_output},
 * which concatenates past target and past covariates and runs the network; every {@code
 * nr_epochs_val_period} epochs it calls {@code _evaluate_validation_loss(val_loader)}.
 *
 * <p>Source: https://github.com/unit8co/darts/pull/449
 *
 * <p>Bug: {@code _evaluate_validation_loss} never calls {@code _batch_to_device}: it passes the
 * validation batch, still on the CPU, to {@code _produce_train_output}, whose network is on the GPU
 * ("The validation dataset batch is not being moved to the gpu device before being used").
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class DartsValidationBatch {
  private DartsValidationBatch() {}

  abstract static class TorchForecastingModel {
    final Sequential model;
    final Device device;
    final MseLoss criterion = new MseLoss();
    final Adam optimizer;
    final int nrEpochsValPeriod = 1;

    TorchForecastingModel(Sequential model, Device device) {
      this.model = model;
      this.device = device;
      model.toDevice(device);
      optimizer = new Adam(model.parameters(), 1e-3);
    }

    abstract Tensor produceTrainOutput(List<Tensor> inputBatch);

    List<Tensor> batchToDevice(List<Tensor> batch) {
      List<Tensor> moved = new ArrayList<>();
      for (Tensor elem : batch) {
        moved.add(elem.to(device));
      }
      return moved;
    }

    Tensor computeLoss(Tensor output, Tensor target) {
      return criterion.forward(output, target);
    }

    void train(DataLoader trainLoader, DataLoader valLoader, int epochs) {
      for (int epoch = 0; epoch < epochs; epoch++) {
        double totalLoss = 0;
        for (Batch b : trainLoader) {
          model.train();
          List<Tensor> trainBatch = batchToDevice(b.tensors());
          Tensor output = produceTrainOutput(trainBatch.subList(0, trainBatch.size() - 1));
          Tensor target = trainBatch.get(trainBatch.size() - 1);
          Tensor loss = computeLoss(output, target);
          optimizer.zeroGrad();
          loss.backward();
          optimizer.step();
          totalLoss += loss.item(); // costs time: HostSyncInLoop
        }
        if (epoch % nrEpochsValPeriod == 0 && valLoader != null) {
          double validationLoss = evaluateValidationLoss(valLoader);
          System.out.printf("Training loss: %.4f, validation loss: %.4f%n", totalLoss / trainLoader.numBatches(),
              validationLoss);
        }
      }
    }

    double evaluateValidationLoss(DataLoader valLoader) {
      double totalLoss = 0;
      int batches = 0;
      model.eval();
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        for (Batch b : valLoader) {
          List<Tensor> valBatch = b.tensors();
          Tensor output = produceTrainOutput(valBatch.subList(0, valBatch.size() - 1)); // bug: across-methods
          Tensor target = valBatch.get(valBatch.size() - 1);
          Tensor loss = computeLoss(output, target);
          totalLoss += loss.item(); // costs time: HostSyncInLoop
          batches++;
        }
      }
      return totalLoss / batches;
    }
  }

  /** {@code PastCovariatesTorchModel} (BlockRNN and friends). */
  static final class PastCovariatesTorchModel extends TorchForecastingModel {
    PastCovariatesTorchModel(Sequential model, Device device) {
      super(model, device);
    }

    @Override
    Tensor produceTrainOutput(List<Tensor> inputBatch) {
      Tensor pastTarget = inputBatch.get(0);
      Tensor pastCovariate = inputBatch.get(1);
      Tensor inpt = pastCovariate != null ? Tensor.cat(List.of(pastTarget, pastCovariate), 2) : pastTarget;
      return model.forward(inpt).view(-1, 3, 1);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Sequential net = new Sequential(new Flatten(), new Linear(6 * 2, 16), new ReLU(), new Linear(16, 3));
    PastCovariatesTorchModel forecaster = new PastCovariatesTorchModel(net, device);
    TensorDataset train = new TensorDataset(Tensor.randn(12, 6, 1), Tensor.randn(12, 6, 1), Tensor.randn(12, 3, 1));
    TensorDataset val = new TensorDataset(Tensor.randn(4, 6, 1), Tensor.randn(4, 6, 1), Tensor.randn(4, 3, 1));
    forecaster.train(DataLoader.builder(train).batchSize(4).shuffle(0).build(),
        DataLoader.builder(val).batchSize(4).build(), 1);
  }
}
