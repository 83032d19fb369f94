package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.Subset;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Adam;
import dev.ondevice.optim.Optimizer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Lightning's MNIST autoencoder example: {@code training_step} and {@code validation_step} share
 * {@code _common_step} and {@code _prepare_batch}, log their loss with {@code self.log}, and an
 * {@code ImageSampler} callback feeds validation images to the module with
 * {@code .to(pl_module.device)} at the end of each training epoch.
 *
 * <p>Source: https://github.com/Lightning-AI/pytorch-lightning/blob/215acdc3efa4b096c80ab2d0263cab20d2f06f54/examples/pytorch/basics/autoencoder.py
 *
 * <p>Ported: LitAutoEncoder (forward, training_step, validation_step, predict_step,
 * configure_optimizers, _prepare_batch, _common_step), ImageSampler.on_train_epoch_end and
 * MyDataModule (random_split, loaders). Lightning's Trainer is not in the API: a minimal fit loop
 * stands in for it, doing what Lightning does for this module (move it to the accelerator, move
 * each batch with batch_to_device, call the steps and the callback); {@code self.log} stores the
 * detached value in the trainer's callback metrics. Left out: LightningCLI, test, make_grid and
 * save_image (the generated images are reshaped and copied to the CPU, as save_image would).
 *
 * <p>Outcome: completes
 */
public final class LightningAutoencoderSteps {
  private LightningAutoencoderSteps() {}

  static final class LitAutoEncoder extends Model {
    final Sequential encoder;
    final Sequential decoder;
    final double learningRate;
    Trainer trainer;

    LitAutoEncoder(int hiddenDim, double learningRate) {
      this.learningRate = learningRate;
      encoder = new Sequential(new Linear(28 * 28, hiddenDim), new ReLU(), new Linear(hiddenDim, 3));
      decoder = new Sequential(new Linear(3, hiddenDim), new ReLU(), new Linear(hiddenDim, 28 * 28));
    }

    Tensor forward(Tensor x) {
      Tensor z = encoder.forward(x);
      return decoder.forward(z);
    }

    Tensor trainingStep(List<Tensor> batch, int batchIdx) {
      return commonStep(batch, batchIdx, "train");
    }

    void validationStep(List<Tensor> batch, int batchIdx) {
      commonStep(batch, batchIdx, "val");
    }

    Tensor predictStep(List<Tensor> batch, int batchIdx) {
      Tensor x = prepareBatch(batch);
      return forward(x);
    }

    Optimizer configureOptimizers() {
      return new Adam(parameters(), learningRate);
    }

    Tensor prepareBatch(List<Tensor> batch) {
      Tensor x = batch.get(0);
      return x.view(x.size(0), -1);
    }

    Tensor commonStep(List<Tensor> batch, int batchIdx, String stage) {
      Tensor x = prepareBatch(batch);
      Tensor loss = new MseLoss().forward(x, forward(x));
      log(stage + "_loss", loss);
      return loss;
    }

    void log(String name, Tensor value) {
      trainer.callbackMetrics.put(name, value.detach());
    }
  }

  static final class ImageSampler {
    final int numSamples = 3;

    void onTrainEpochEnd(Trainer trainer, LitAutoEncoder plModule) {
      Batch first = DataLoader.builder(trainer.datamodule.mnistVal).batchSize(numSamples).build().iterator().next();
      Tensor images = first.inputs();
      Tensor imagesFlattened = images.view(images.size(0), -1);
      Tensor imagesGenerated;
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        plModule.eval();
        imagesGenerated = plModule.forward(imagesFlattened.to(plModule.device()));
        plModule.train();
      }
      Tensor grid = imagesGenerated.reshape(images.shape()).cpu();
      System.out.println("grid_generated_" + trainer.currentEpoch + ": " + grid.shape());
    }
  }

  static final class MyDataModule {
    final Subset mnistTrain;
    final Subset mnistVal;
    final int batchSize;

    MyDataModule(int batchSize) {
      TensorDataset dataset = new TensorDataset(Tensor.rand(Shape.of(40, 1, 28, 28)), Tensor.randint(0, 10, Shape.of(40)));
      List<Subset> split = Subset.randomSplit(dataset, 42, 32, 8);
      mnistTrain = split.get(0);
      mnistVal = split.get(1);
      this.batchSize = batchSize;
    }

    DataLoader trainDataloader() {
      return DataLoader.builder(mnistTrain).batchSize(batchSize).build();
    }

    DataLoader valDataloader() {
      return DataLoader.builder(mnistVal).batchSize(batchSize).build();
    }
  }

  /** A minimal stand-in for Lightning's Trainer.fit, for this module. */
  static final class Trainer {
    final Device device;
    final int maxEpochs;
    final ImageSampler callback = new ImageSampler();
    final Map<String, Tensor> callbackMetrics = new LinkedHashMap<>();
    MyDataModule datamodule;
    int currentEpoch;

    Trainer(Device device, int maxEpochs) {
      this.device = device;
      this.maxEpochs = maxEpochs;
    }

    List<Tensor> batchToDevice(Batch batch) {
      List<Tensor> moved = new ArrayList<>();
      for (Tensor t : batch.tensors()) {
        moved.add(t.to(device));
      }
      return moved;
    }

    void fit(LitAutoEncoder model, MyDataModule datamodule) {
      this.datamodule = datamodule;
      model.trainer = this;
      model.toDevice(device);
      Optimizer optimizer = model.configureOptimizers();
      for (currentEpoch = 0; currentEpoch < maxEpochs; currentEpoch++) {
        model.train();
        int batchIdx = 0;
        for (Batch batch : datamodule.trainDataloader()) {
          Tensor loss = model.trainingStep(batchToDevice(batch), batchIdx++);
          optimizer.zeroGrad();
          loss.backward();
          optimizer.step();
        }
        model.eval();
        try (Autograd.Scope ignored = Autograd.noGrad()) {
          batchIdx = 0;
          for (Batch batch : datamodule.valDataloader()) {
            model.validationStep(batchToDevice(batch), batchIdx++);
          }
        }
        model.train();
        callback.onTrainEpochEnd(this, model);
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    LitAutoEncoder model = new LitAutoEncoder(64, 10e-3);
    MyDataModule datamodule = new MyDataModule(8);
    Trainer trainer = new Trainer(device, 2);
    trainer.fit(model, datamodule);
    System.out.printf("val_loss %.4f%n", trainer.callbackMetrics.get("val_loss").item());
  }
}
