package corpus.correct;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.Optimizer;
import dev.ondevice.optim.Sgd;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The PyTorch DDP tutorial's fault-tolerant Trainer: the model is moved to {@code cuda:LOCAL_RANK},
 * each batch is moved in {@code _run_epoch}, a snapshot of the model state and the epochs run is
 * saved every {@code save_every} epochs, and a restarted trainer resumes from it with
 * {@code torch.load(snapshot_path, map_location=f"cuda:{gpu_id}")}.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/main/distributed/ddp-tutorial-series/multigpu_torchrun.py
 *
 * <p>Ported: Trainer (__init__, _load_snapshot, _run_batch, _run_epoch, _save_snapshot, train) and
 * load_train_objs as written; run() trains, then builds a second Trainer as a restart would, which
 * resumes from the snapshot. A checkpoint is one flat map of tensors: the snapshot dict's
 * MODEL_STATE entries are saved under "MODEL_STATE." keys and EPOCHS_RUN as a 0-dim int64 tensor.
 * Left out: DDP and the process group (one process; self.model.module is the model), the
 * DistributedSampler and set_epoch. LOCAL_RANK is read from the environment, 0 when unset.
 * F.cross_entropy on the [N, 1] regression targets (probability targets, which the API does not
 * support) is replaced by MSE.
 *
 * <p>Outcome: completes
 */
public final class DdpTutorialSnapshotTrainer {
  private DdpTutorialSnapshotTrainer() {}

  static final class Trainer {
    final int gpuId;
    final Linear model;
    final DataLoader trainData;
    final Optimizer optimizer;
    final int saveEvery;
    int epochsRun;
    final Path snapshotPath;

    Trainer(Linear model, DataLoader trainData, Optimizer optimizer, int saveEvery, Path snapshotPath) throws Exception {
      this.gpuId = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0"));
      this.model = model;
      this.model.toDevice(Device.cuda(gpuId));
      this.trainData = trainData;
      this.optimizer = optimizer;
      this.saveEvery = saveEvery;
      this.epochsRun = 0;
      this.snapshotPath = snapshotPath;
      if (Files.exists(snapshotPath)) {
        System.out.println("Loading snapshot");
        loadSnapshot(snapshotPath);
      }
    }

    void loadSnapshot(Path snapshotPath) throws Exception {
      String loc = "cuda:" + gpuId;
      Map<String, Tensor> snapshot = Checkpoint.load(snapshotPath, MapLocation.to(Device.parse(loc))).stateDict();
      Map<String, Tensor> modelState = new LinkedHashMap<>();
      snapshot.forEach((k, v) -> {
        if (k.startsWith("MODEL_STATE.")) {
          modelState.put(k.substring("MODEL_STATE.".length()), v);
        }
      });
      model.loadStateDict(modelState, true);
      epochsRun = (int) snapshot.get("EPOCHS_RUN").itemAsLong();
      System.out.println("Resuming training from snapshot at Epoch " + epochsRun);
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
      System.out.printf("[GPU%d] Epoch %d | Batchsize: %d | Steps: %d%n", gpuId, epoch, bSz, trainData.numBatches());
      for (Batch batch : trainData) {
        Tensor source = batch.inputs().to(Device.cuda(gpuId));
        Tensor targets = batch.targets().to(Device.cuda(gpuId));
        runBatch(source, targets);
      }
    }

    void saveSnapshot(int epoch) throws Exception {
      Map<String, Tensor> snapshot = new LinkedHashMap<>();
      model.stateDict().forEach((k, v) -> snapshot.put("MODEL_STATE." + k, v));
      snapshot.put("EPOCHS_RUN", Tensor.scalar((long) epoch));
      Checkpoint.save(snapshotPath, snapshot, null);
      System.out.printf("Epoch %d | Training snapshot saved at %s%n", epoch, snapshotPath);
    }

    void train(int maxEpochs) throws Exception {
      for (int epoch = epochsRun; epoch < maxEpochs; epoch++) {
        runEpoch(epoch);
        if (gpuId == 0 && epoch % saveEvery == 0) {
          saveSnapshot(epoch);
        }
      }
    }
  }

  record TrainObjs(TensorDataset trainSet, Linear model, Optimizer optimizer) {}

  static TrainObjs loadTrainObjs() {
    TensorDataset trainSet = new TensorDataset(Tensor.rand(Shape.of(64, 20)), Tensor.rand(Shape.of(64, 1)));
    Linear model = new Linear(20, 1);
    Optimizer optimizer = new Sgd(model.parameters(), 1e-3);
    return new TrainObjs(trainSet, model, optimizer);
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Path snapshotPath = Files.createTempDirectory("ddp-snapshot").resolve("snapshot.safetensors");
    for (int totalEpochs : new int[] {2, 4}) { // a first run, then a restart that resumes from the snapshot
      TrainObjs objs = loadTrainObjs();
      DataLoader trainData = DataLoader.builder(objs.trainSet()).batchSize(16).pinMemory(true).build();
      Trainer trainer = new Trainer(objs.model(), trainData, objs.optimizer(), 1, snapshotPath);
      trainer.train(totalEpochs);
    }
  }
}
