package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Generator;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Loss;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Optimizer;
import dev.ondevice.optim.Sgd;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The StepByStep trainer class of "Deep Learning with PyTorch Step-by-Step": it picks the device
 * itself, moves the model in its constructor and in {@code to(device)}, builds train/val step
 * closures that return {@code loss.item()}, moves every mini-batch to {@code self.device}, saves and
 * loads checkpoints and predicts from host arrays.
 *
 * <p>Source: https://github.com/dvgodoy/PyTorchStepByStep/blob/1bef4140dc07e6e1ac4a479264ea89b6a0a0c98e/stepbystep/v0.py
 *
 * <p>Ported: __init__, to, set_loaders, _make_train_step_fn, _make_val_step_fn, _mini_batch,
 * set_seed, train, save_checkpoint, load_checkpoint and predict as written. torch.load without
 * map_location puts tensors back where they were saved: here a MapLocation mapping this trainer's
 * device to itself. A checkpoint is a flat map of tensors: the dict's model_state_dict entries go
 * under "model_state_dict." keys, epoch and the loss lists as tensors, the optimizer state as the
 * checkpoint's optimizer state. Left out: TensorBoard, plots, add_graph, the except branch of to().
 *
 * <p>Outcome: completes
 */
public final class StepByStepTrainer {
  private StepByStepTrainer() {}

  static final class StepByStep {
    final Layer model;
    final Loss lossFn;
    final Optimizer optimizer;
    Device device;
    DataLoader trainLoader;
    DataLoader valLoader;
    List<Double> losses = new ArrayList<>();
    List<Double> valLosses = new ArrayList<>();
    int totalEpochs = 0;
    final BiFunction<Tensor, Tensor, Double> trainStepFn;
    final BiFunction<Tensor, Tensor, Double> valStepFn;

    StepByStep(Layer model, Loss lossFn, Optimizer optimizer) {
      this.model = model;
      this.lossFn = lossFn;
      this.optimizer = optimizer;
      this.device = Device.cudaIfAvailable();
      this.model.toDevice(this.device); // send the model to the specified device right away
      this.trainStepFn = makeTrainStepFn();
      this.valStepFn = makeValStepFn();
    }

    void to(Device device) {
      this.device = device;
      this.model.toDevice(this.device);
    }

    void setLoaders(DataLoader trainLoader, DataLoader valLoader) {
      this.trainLoader = trainLoader;
      this.valLoader = valLoader;
    }

    BiFunction<Tensor, Tensor, Double> makeTrainStepFn() {
      return (x, y) -> {
        model.train();
        Tensor yhat = model.forward(x);
        Tensor loss = lossFn.forward(yhat, y);
        loss.backward();
        optimizer.step();
        optimizer.zeroGrad();
        return loss.item(); // costs time: HostSyncInLoop
      };
    }

    BiFunction<Tensor, Tensor, Double> makeValStepFn() {
      return (x, y) -> {
        model.eval();
        Tensor yhat = model.forward(x);
        Tensor loss = lossFn.forward(yhat, y);
        return loss.item(); // costs time: HostSyncInLoop
      };
    }

    Double miniBatch(boolean validation) {
      DataLoader dataLoader = validation ? valLoader : trainLoader;
      BiFunction<Tensor, Tensor, Double> stepFn = validation ? valStepFn : trainStepFn;
      if (dataLoader == null) {
        return null;
      }
      List<Double> miniBatchLosses = new ArrayList<>();
      for (Batch b : dataLoader) {
        Tensor xBatch = b.inputs().to(device);
        Tensor yBatch = b.targets().to(device);
        miniBatchLosses.add(stepFn.apply(xBatch, yBatch));
      }
      return miniBatchLosses.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    void setSeed(long seed) {
      Generator.manualSeed(seed);
    }

    void train(int nEpochs, long seed) {
      setSeed(seed);
      for (int epoch = 0; epoch < nEpochs; epoch++) {
        totalEpochs += 1;
        Double loss = miniBatch(false);
        losses.add(loss);
        try (Autograd.Scope ignored = Autograd.noGrad()) {
          Double valLoss = miniBatch(true);
          valLosses.add(valLoss);
        }
      }
    }

    void saveCheckpoint(Path filename) throws Exception {
      Map<String, Tensor> checkpoint = new LinkedHashMap<>();
      checkpoint.put("epoch", Tensor.scalar((long) totalEpochs));
      model.stateDict().forEach((k, v) -> checkpoint.put("model_state_dict." + k, v));
      checkpoint.put("loss", Tensor.of(losses.stream().mapToDouble(Double::doubleValue).toArray()));
      checkpoint.put("val_loss", Tensor.of(valLosses.stream().mapToDouble(Double::doubleValue).toArray()));
      Checkpoint.save(filename, checkpoint, optimizer.stateDict());
    }

    void loadCheckpoint(Path filename) throws Exception {
      Checkpoint checkpoint = Checkpoint.load(filename, MapLocation.remap(Map.of(device, device)));
      Map<String, Tensor> modelState = new LinkedHashMap<>();
      checkpoint.stateDict().forEach((k, v) -> {
        if (k.startsWith("model_state_dict.")) {
          modelState.put(k.substring("model_state_dict.".length()), v);
        }
      });
      model.loadStateDict(modelState, true);
      optimizer.loadStateDict(checkpoint.optimizerState().orElseThrow());
      totalEpochs = (int) checkpoint.stateDict().get("epoch").itemAsLong();
      losses = new ArrayList<>();
      for (double l : checkpoint.stateDict().get("loss").toDoubleArray()) {
        losses.add(l);
      }
      valLosses = new ArrayList<>();
      for (double l : checkpoint.stateDict().get("val_loss").toDoubleArray()) {
        valLosses.add(l);
      }
      model.train(); // always use TRAIN for resuming training
    }

    float[] predict(float[][] x) {
      model.eval();
      Tensor xTensor = Tensor.of(x);
      Tensor yHatTensor = model.forward(xTensor.to(device));
      model.train();
      return yHatTensor.detach().cpu().toFloatArray();
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Tensor x = Tensor.rand(Shape.of(100, 1));
    Tensor y = x.mul(2).add(1).add(Tensor.randn(Shape.of(100, 1)).mul(0.1));
    DataLoader trainLoader = DataLoader.builder(new TensorDataset(x.slice(0, 0, 80), y.slice(0, 0, 80)))
        .batchSize(16).shuffle(13).build();
    DataLoader valLoader = DataLoader.builder(new TensorDataset(x.slice(0, 80, 100), y.slice(0, 80, 100)))
        .batchSize(16).build();
    Sequential model = new Sequential(new Linear(1, 1));
    StepByStep sbs = new StepByStep(model, new MseLoss(), new Sgd(model.parameters(), 0.1));
    sbs.to(device);
    sbs.setLoaders(trainLoader, valLoader);
    sbs.train(3, 42);
    Path file = Files.createTempDirectory("sbs").resolve("model_checkpoint.safetensors");
    sbs.saveCheckpoint(file);

    Sequential newModel = new Sequential(new Linear(1, 1));
    StepByStep newSbs = new StepByStep(newModel, new MseLoss(), new Sgd(newModel.parameters(), 0.1));
    newSbs.to(device);
    newSbs.loadCheckpoint(file);
    newSbs.setLoaders(trainLoader, valLoader);
    newSbs.train(2, 42);
    float[] predictions = newSbs.predict(new float[][] {{0.2f}, {0.5f}});
    System.out.println("epochs " + newSbs.totalEpochs + ", predictions " + java.util.Arrays.toString(predictions));
  }
}
