package dev.ondevice.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Device;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.Mnist;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample's short run, on an emulated CUDA device (surefire starts the JVM with
 * {@code -Dondevice.emulatedCudaDevices=1}): five epochs over the bundled subset, about 235
 * batches. The loss falls, exactly one host synchronisation happens per epoch, and the checkpoint
 * and the plot are usable.
 */
class MnistTrainerTest {
  @Test
  void shortRunOnAnEmulatedGpuSyncsOncePerEpochAndLearns(@TempDir Path out) throws Exception {
    TrainingOptions options = TrainingOptions.parse(new String[] {"--device", "cuda:0", "--epochs", "5",
        "--out", out.toString()}, MnistTrainer.defaultData());
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<EpochResult> results = MnistTrainer.train(options, new PrintStream(log, true, StandardCharsets.UTF_8), false);

    assertEquals(5, results.size());
    for (EpochResult r : results) {
      assertEquals(1, r.hostSyncs, "host syncs in epoch " + r.epoch);
    }
    assertTrue(results.get(4).loss < results.get(0).loss * 0.8,
        "the loss falls: " + results.get(0).loss + " -> " + results.get(4).loss);
    assertTrue(results.get(4).accuracy > 0.85, "test accuracy " + results.get(4).accuracy);
    String text = log.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("on cuda:0 (emulated)"), text);
    assertTrue(text.contains("epoch 5/5 100% [="), text);
    assertTrue(text.contains(", 1 host sync\n"), text);

    MnistMlp restored = new MnistMlp(Device.cpu());
    Checkpoint.restore(out.resolve("mnist-mlp.safetensors"), restored, null, MapLocation.to(Device.cpu()));
    DataLoader test = DataLoader.builder(Mnist.load(options.data, false)).batchSize(1000).build();
    double accuracy = MnistTrainer.evaluate(restored, test, Device.cpu(), false).itemAsLong() / 1000.0;
    assertEquals(results.get(4).accuracy, accuracy, 1e-9, "the checkpoint holds the trained weights");

    BufferedImage plot = ImageIO.read(out.resolve("mnist-mlp.png").toFile());
    assertNotNull(plot);
    assertEquals(800, plot.getWidth());
    assertTrue(Files.size(out.resolve("mnist-mlp.png")) > 5_000);
  }

  @Test
  void onTheCpuTheLoopReadsOncePerEpochBesidesTheProgressBar(@TempDir Path out) throws Exception {
    TrainingOptions options = TrainingOptions.parse(new String[] {"--device", "cpu", "--epochs", "2",
        "--max-batches", "6", "--out", out.toString()}, MnistTrainer.defaultData());
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<EpochResult> results = MnistTrainer.train(options, new PrintStream(log, true, StandardCharsets.UTF_8), false);

    String text = log.toString(StandardCharsets.UTF_8);
    for (EpochResult r : results) {
      assertEquals(1, r.hostSyncs - r.progressReads, "the loop's host reads in epoch " + r.epoch);
      assertTrue(text.contains("1 host read by the training loop, " + r.progressReads + " by the progress bar"), text);
    }
    assertTrue(text.contains("host reads to save it)"), text);
    assertTrue(text.contains("the whole run: cpu: "), text);
  }
}
