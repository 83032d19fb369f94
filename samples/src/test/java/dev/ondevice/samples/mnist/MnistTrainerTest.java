package dev.ondevice.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Device;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.Mnist;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.train.EpochMetrics;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample's short run, on an emulated CUDA device (surefire starts the JVM with {@code
 * -Dondevice.emulatedCudaDevices=1}): five epochs over the bundled subset, about 235 batches. The
 * loss falls, exactly one host synchronisation happens per epoch, and the checkpoint and the plot
 * are usable.
 */
class MnistTrainerTest {
  @Test
  void shortRunOnAnEmulatedGpuSyncsOncePerEpochAndLearns(@TempDir Path out) throws Exception {
    TrainingOptions options =
        TrainingOptions.parse(
            new String[] {"--device", "cuda:0", "--epochs", "5", "--out", out.toString()},
            MnistTrainer.defaultData());
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<EpochMetrics> results =
        MnistTrainer.train(options, new PrintStream(log, true, StandardCharsets.UTF_8), false);

    assertEquals(5, results.size());
    for (EpochMetrics r : results) {
      assertEquals(1, r.hostSyncs(), "host syncs in epoch " + r.epoch());
      assertEquals(47, r.batches(), "6,000 images in batches of 128");
      assertEquals(6000, r.samples());
      assertEquals(0, r.runningLossReads(), "the progress bar reads copies, which do not wait");
    }
    assertTrue(
        results.get(4).meanLoss() < results.get(0).meanLoss() * 0.8,
        "the loss falls: " + results.get(0).meanLoss() + " -> " + results.get(4).meanLoss());
    double lastAccuracy = results.get(4).accuracy().orElseThrow();
    assertTrue(lastAccuracy > 0.85, "test accuracy " + lastAccuracy);
    String text = log.toString(StandardCharsets.UTF_8);
    assertTrue(
        text.contains(
            String.format(
                Locale.ROOT,
                "epoch 5: loss %.4f, test accuracy %.2f%%, ",
                results.get(4).meanLoss(),
                100 * lastAccuracy)),
        text);
    assertTrue(text.contains("on cuda:0 (emulated)"), text);
    assertTrue(text.contains("epoch 5/5 100% [="), text);
    assertTrue(text.contains(", 1 host sync\n"), text);

    MnistMlp restored = new MnistMlp(Device.cpu());
    Checkpoint.restore(
        out.resolve("mnist-mlp.safetensors"), restored, null, MapLocation.to(Device.cpu()));
    DataLoader test = DataLoader.builder(Mnist.load(options.data, false)).batchSize(1000).build();
    double accuracy =
        MnistTrainer.evaluate(restored, test, Device.cpu(), false).itemAsLong() / 1000.0;
    assertEquals(lastAccuracy, accuracy, 1e-9, "the checkpoint holds the trained weights");

    BufferedImage plot = ImageIO.read(out.resolve("mnist-mlp.png").toFile());
    assertNotNull(plot);
    assertEquals(800, plot.getWidth());
    assertTrue(Files.size(out.resolve("mnist-mlp.png")) > 5_000);
  }

  @Test
  void onTheCpuTheLoopReadsOncePerEpochAndTheProgressBarEveryFiveBatches(@TempDir Path out)
      throws Exception {
    TrainingOptions options =
        TrainingOptions.parse(
            new String[] {
              "--device", "cpu", "--epochs", "2", "--max-batches", "6", "--out", out.toString()
            },
            MnistTrainer.defaultData());
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<EpochMetrics> results =
        MnistTrainer.train(options, new PrintStream(log, true, StandardCharsets.UTF_8), false);

    String text = log.toString(StandardCharsets.UTF_8);
    for (EpochMetrics r : results) {
      assertEquals(2, r.hostSyncs(), "host reads in epoch " + r.epoch());
      assertEquals(1, r.runningLossReads(), "the running loss, read at the 5th of 6 batches");
      assertEquals(768, r.samples(), "6 batches of 128");
    }
    assertEquals(
        2,
        text.split("1 host read by the training loop, 1 by the progress bar\n", -1).length - 1,
        text);
    assertTrue(text.contains("host reads to save it)"), text);
    assertTrue(text.contains("the whole run: cpu: "), text);
  }
}
