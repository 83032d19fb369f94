package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Optimizer;
import dev.ondevice.optim.Sgd;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * mrs (Duke's satellite-imagery segmentation toolkit) {@code train.py}: {@code train_model} builds
 * the encoder-decoder, its optimizer and losses, resumes from {@code epoch-<n-1>.pth.tar} through
 * {@code network_utils.load_epoch} when {@code resume_epoch > 0}, then moves the model and the
 * criterions to the device and runs the epochs through the model's own {@code step}, saving a
 * snapshot every {@code save_epoch} epochs.
 *
 * <p>Source: https://github.com/bohaohuang/mrs/pull/47 (commit 9da5424)
 *
 * <p>Bug: {@code load_epoch} loads the snapshot with {@code map_location} to the CPU and calls
 * {@code optm.load_state_dict} while the model is still on the CPU; {@code train_model} only moves
 * the model afterwards, so the momentum buffers stay on the CPU and the first {@code optm.step()}
 * meets CUDA parameters. The fix passes {@code device} to {@code load_epoch} and moves every
 * optimizer state tensor there after loading.
 *
 * <p>Outcome: throws IllegalStateException
 */
public final class MrsResumeOptimizerBeforeModelTo {
  private MrsResumeOptimizerBeforeModelTo() {}

  /** A small encoder-decoder standing in for the UNet/DLinkNet of {@code network_io.create_model}. */
  static final class EncoderDecoder extends Model {
    final Sequential encoder = new Sequential(new Conv2d(3, 8, 3, 1, 1, true), new ReLU(), new Conv2d(8, 8, 3, 1, 1, true), new ReLU());
    final Sequential decoder = new Sequential(new Conv2d(8, 8, 3, 1, 1, true), new ReLU(), new Conv2d(8, 2, 1, 1, 0, true));

    Tensor forward(Tensor x) {
      return decoder.forward(encoder.forward(x));
    }

    /** {@code Base.step}: one pass over the loader; the loss meter reads each batch's loss. */
    double step(DataLoader loader, Device device, Optimizer optm, String phase, CrossEntropyLoss criterion) {
      double meter = 0;
      int cnt = 0;
      for (Batch b : loader) {
        Tensor image = b.inputs().to(device);
        Tensor label = b.targets().to(device);
        optm.zeroGrad();
        Tensor pred = forward(image);
        Tensor loss = criterion.forward(pred, label);
        meter += loss.item() * image.size(0); // costs time: HostSyncInLoop
        cnt++;
        if (phase.equals("train")) {
          loss.backward();
          optm.step(); // same bug
        }
      }
      return meter / cnt;
    }
  }

  /** {@code network_utils}. */
  static final class NetworkUtils {
    static void save(EncoderDecoder model, Optimizer optm, Path saveName) {
      try {
        Checkpoint.save(saveName, model, optm);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** {@code load_epoch(save_dir, resume_epoch, model, optm)}: all tensors onto the CPU. */
    static void loadEpoch(Path saveDir, int resumeEpoch, EncoderDecoder model, Optimizer optm) {
      try {
        Checkpoint checkpoint = Checkpoint.load(saveDir.resolve("epoch-" + (resumeEpoch - 1) + ".safetensors"), MapLocation.to(Device.cpu()));
        System.out.println("Initializing weights from: epoch-" + (resumeEpoch - 1));
        model.loadStateDict(checkpoint.stateDict(), true);
        optm.loadStateDict(checkpoint.optimizerState().orElseThrow()); // bug: training-state
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  static void trainModel(Path saveDir, int resumeEpoch, int epochs, Device device) {
    EncoderDecoder model = new EncoderDecoder();
    // make optimizer
    Sgd optm = new Sgd(model.parameters(), 0.01).momentum(0.9);
    CrossEntropyLoss criterion = new CrossEntropyLoss();

    if (resumeEpoch == 0) {
      System.out.println("Training from scratch ...");
    } else {
      System.out.println("Resume training from epoch " + resumeEpoch + " ...");
      NetworkUtils.loadEpoch(saveDir, resumeEpoch, model, optm);
    }

    // prepare training
    model.toDevice(device); // same bug

    // make data loader
    TensorDataset train = new TensorDataset(Tensor.randn(Shape.of(8, 3, 8, 8)), Tensor.randint(0, 2, Shape.of(8, 8, 8)));
    DataLoader trainLoader = DataLoader.builder(train).batchSize(4).shuffle(0).dropLast(true).build();

    for (int epoch = resumeEpoch; epoch < epochs; epoch++) {
      model.train();
      double loss = model.step(trainLoader, device, optm, "train", criterion);
      System.out.printf("epoch %d: train loss %.4f%n", epoch, loss);
      NetworkUtils.save(model, optm, saveDir.resolve("epoch-" + epoch + ".safetensors"));
    }
  }

  public static void run(Device device) {
    try {
      Path saveDir = Files.createTempDirectory("mrs");
      trainModel(saveDir, 0, 2, device);      // a first run, stopped after two epochs
      trainModel(saveDir, 2, 4, device);      // resumed from epoch-1
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
