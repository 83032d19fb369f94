package corpus.correct;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.Optimizer;
import dev.ondevice.optim.Sgd;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The single-GPU starting point of the DDP tutorial series: a {@code Trainer} that moves the model
 * to {@code gpu_id} in its constructor, moves every batch's source and targets in
 * {@code _run_epoch}, runs the step in {@code _run_batch}, and saves the model's state dict every
 * {@code save_every} epochs.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/77f55b912142e11fcfdf5b530231fb9c52f181e8/distributed/ddp-tutorial-series/single_gpu.py
 * (with MyTrainDataset from datautils.py)
 *
 * <p>Ported: Trainer (constructor, _run_batch, _run_epoch with its {@code b_sz} probe and print,
 * _save_checkpoint, train), load_train_objs (a Linear(20, 1) and SGD with lr 1e-3),
 * prepare_dataloader ({@code pin_memory=True}, shuffled) and main. Left out: argparse. The original
 * applies {@code F.cross_entropy} to the single output and a float target of shape [B, 1]
 * (probability targets, which this API's CrossEntropyLoss does not take); the port uses an MSE loss
 * on the same tensors. {@code torch.save} is a Checkpoint in a temporary file.
 *
 * <p>Outcome: completes
 */
public final class DdpTutorialSingleGpuTrainer {
  private DdpTutorialSingleGpuTrainer() {}

  static final class Trainer {
    final Device gpuId;
    final Layer model;
    final DataLoader trainData;
    final Optimizer optimizer;
    final int saveEvery;
    final Path checkpointPath;

    Trainer(Layer model, DataLoader trainData, Optimizer optimizer, Device gpuId, int saveEvery, Path checkpointPath) {
      this.gpuId = gpuId;
      model.toDevice(gpuId);
      this.model = model;
      this.trainData = trainData;
      this.optimizer = optimizer;
      this.saveEvery = saveEvery;
      this.checkpointPath = checkpointPath;
    }

    void runBatch(Tensor source, Tensor targets) {
      optimizer.zeroGrad();
      Tensor output = model.forward(source);
      Tensor loss = new MseLoss().forward(output, targets);
      loss.backward();
      optimizer.step();
    }

    void runEpoch(int epoch) {
      long bSz = trainData.iterator().next().inputs().size(0);
      System.out.printf("[GPU%s] Epoch %d | Batchsize: %d | Steps: %d%n", gpuId, epoch, bSz, trainData.numBatches());
      for (Batch b : trainData) {
        Tensor source = b.inputs().to(gpuId);
        Tensor targets = b.targets().to(gpuId);
        runBatch(source, targets);
      }
    }

    void saveCheckpoint(int epoch) throws Exception {
      Checkpoint.save(checkpointPath, model, null);
      System.out.printf("Epoch %d | Training checkpoint saved at %s%n", epoch, checkpointPath);
    }

    void train(int maxEpochs) throws Exception {
      for (int epoch = 0; epoch < maxEpochs; epoch++) {
        runEpoch(epoch);
        if (epoch % saveEvery == 0) {
          saveCheckpoint(epoch);
        }
      }
    }
  }

  static Object[] loadTrainObjs() {
    TensorDataset trainSet = new TensorDataset(Tensor.rand(Shape.of(256, 20)), Tensor.rand(Shape.of(256, 1)));
    Linear model = new Linear(20, 1);
    Sgd optimizer = new Sgd(model.parameters(), 1e-3);
    return new Object[] {trainSet, model, optimizer};
  }

  static DataLoader prepareDataloader(TensorDataset dataset, int batchSize) {
    return DataLoader.builder(dataset).batchSize(batchSize).pinMemory(true).shuffle(0).build();
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Object[] objs = loadTrainObjs();
    DataLoader trainData = prepareDataloader((TensorDataset) objs[0], 32);
    Path dir = Files.createTempDirectory("ddp-single-gpu");
    try {
      Trainer trainer = new Trainer((Layer) objs[1], trainData, (Optimizer) objs[2], device, 1, dir.resolve("checkpoint.safetensors"));
      trainer.train(2);
    } finally {
      Files.deleteIfExists(dir.resolve("checkpoint.safetensors"));
      Files.deleteIfExists(dir);
    }
  }
}
