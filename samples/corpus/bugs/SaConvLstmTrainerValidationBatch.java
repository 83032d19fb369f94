package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * SA-ConvLSTM-Pytorch's {@code pipeline/trainer.py}: the {@code Trainer} takes the model, the
 * loaders, the loss ({@code nn.MSELoss}) and an accuracy criterion ({@code nn.L1Loss}), moves the
 * model in its constructor ({@code self.model = model.to(DEVICE)}, the fix of PR #25), moves each
 * training batch with {@code input.to(DEVICE), target.to(DEVICE)}, and after each epoch calls {@code
 * validation()}, which scores one batch of the validation loader.
 *
 * <p>Source: https://github.com/tsugumi-sys/SA-ConvLSTM-Pytorch/pull/26 (commit 5049751)
 *
 * <p>Bug: {@code validation()} takes {@code input, target = next(iter(self.valid_dataloader))} and
 * calls {@code self.model(input)} without moving them: "Expected all tensors to be on the same
 * device, but found at least two devices, cpu and cuda:0!"; the fix added {@code input, target =
 * input.to(DEVICE), target.to(DEVICE)}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class SaConvLstmTrainerValidationBatch {
  private SaConvLstmTrainerValidationBatch() {}

  /** core/constants.py. */
  static final class Constants {
    private Constants() {}

    static Device device = Device.cudaIfAvailable();
  }

  /** The Seq2Seq ConvLSTM, reduced to a frame-to-frame convolutional predictor. */
  static final class Seq2Seq extends Model {
    final Conv2d encoder = new Conv2d(1, 4, 3, 1, 1, true);
    final Conv2d decoder = new Conv2d(4, 1, 3, 1, 1, true);

    Tensor forward(Tensor x) {
      return decoder.forward(encoder.forward(x).relu()).sigmoid();
    }
  }

  static final class Trainer {
    final Seq2Seq model;
    final int trainEpochs;
    final DataLoader trainDataloader;
    final DataLoader validDataloader;
    final MseLoss lossCriterion;
    final BiFunction<Tensor, Tensor, Tensor> accuracyCriterion;
    final Adam optimizer;

    Trainer(Seq2Seq model, int trainEpochs, DataLoader trainDataloader, DataLoader validDataloader,
        MseLoss lossCriterion, BiFunction<Tensor, Tensor, Tensor> accuracyCriterion, Adam optimizer) {
      model.toDevice(Constants.device);
      this.model = model;
      this.trainEpochs = trainEpochs;
      this.trainDataloader = trainDataloader;
      this.validDataloader = validDataloader;
      this.lossCriterion = lossCriterion;
      this.accuracyCriterion = accuracyCriterion;
      this.optimizer = optimizer;
    }

    void run() {
      Map<String, List<Double>> results = train();
      System.out.println(results);
    }

    Map<String, List<Double>> train() {
      Map<String, List<Double>> results = new LinkedHashMap<>();
      results.put("train_loss", new ArrayList<>());
      results.put("validation_loss", new ArrayList<>());
      results.put("accuracy", new ArrayList<>());
      for (int epoch = 1; epoch <= trainEpochs; epoch++) {
        double trainLoss = 0;
        model.train();
        for (Batch batch : trainDataloader) {
          Tensor input = batch.inputs().to(Constants.device);
          Tensor target = batch.targets().to(Constants.device);
          Tensor output = model.forward(input);
          Tensor loss = lossCriterion.forward(output.flatten(), target.flatten());
          optimizer.zeroGrad();
          loss.backward();
          optimizer.step();
          trainLoss = loss.item(); // costs time: HostSyncInLoop
        }
        trainLoss /= trainDataloader.numBatches();
        double[] valid = validation();
        results.get("train_loss").add(trainLoss);
        results.get("validation_loss").add(valid[0]);
        results.get("accuracy").add(valid[1]);
      }
      return results;
    }

    double[] validation() {
      model.eval();
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        Batch batch = validDataloader.iterator().next();
        Tensor input = batch.inputs();
        Tensor target = batch.targets();
        Tensor output = model.forward(input); // bug: across-methods
        Tensor loss = lossCriterion.forward(output.flatten(), target.flatten());
        Tensor acc = accuracyCriterion.apply(output.flatten(), target.flatten());
        return new double[] {loss.item(), acc.item()};
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Constants.device = device;
    TensorDataset train = new TensorDataset(Tensor.rand(Shape.of(8, 1, 16, 16)), Tensor.rand(Shape.of(8, 1, 16, 16)));
    TensorDataset valid = new TensorDataset(Tensor.rand(Shape.of(4, 1, 16, 16)), Tensor.rand(Shape.of(4, 1, 16, 16)));
    DataLoader trainLoader = DataLoader.builder(train).batchSize(2).shuffle(0).build();
    DataLoader validLoader = DataLoader.builder(valid).batchSize(2).build();
    Seq2Seq model = new Seq2Seq();
    Adam optimizer = new Adam(model.parameters(), 0.0005);
    BiFunction<Tensor, Tensor, Tensor> l1Loss = (a, b) -> a.sub(b).abs().mean();   // nn.L1Loss()
    Trainer trainer = new Trainer(model, 1, trainLoader, validLoader, new MseLoss(), l1Loss, optimizer);
    trainer.run();
  }
}
