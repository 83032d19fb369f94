package dev.ondevice.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Cuda;
import dev.ondevice.train.EpochMetrics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample on the CUDA backend (the cuda-backend execution of samples/pom.xml: a GPU, or the
 * host-executed driver that the runtime's build makes): a short run of two epochs of ten batches,
 * with pinned batches copied without blocking, one host synchronisation per epoch, a falling loss
 * and a checkpoint written from the device. Skipped where cuda:0 is not the CUDA backend's.
 */
class MnistTrainerCudaTest {
  @Test
  void shortRunOnTheCudaBackendSyncsOncePerEpoch(@TempDir Path out) throws Exception {
    Assumptions.assumeTrue(
        Cuda.isAvailable() && !Cuda.isEmulated(),
        "no CUDA backend here: " + Cuda.unavailableReason().orElse("the devices are emulated"));
    TrainingOptions options =
        TrainingOptions.parse(
            new String[] {
              "--device", "cuda:0", "--epochs", "2", "--max-batches", "10", "--out", out.toString()
            },
            MnistTrainer.defaultData());
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<EpochMetrics> results =
        MnistTrainer.train(options, new PrintStream(log, true, StandardCharsets.UTF_8), false);

    assertEquals(2, results.size());
    for (EpochMetrics r : results) {
      assertEquals(1, r.hostSyncs(), "host syncs in epoch " + r.epoch());
    }
    assertTrue(
        results.get(1).meanLoss() < results.get(0).meanLoss(),
        results.get(0).meanLoss() + " -> " + results.get(1).meanLoss());
    assertTrue(
        Files.size(out.resolve("mnist-mlp.safetensors")) > 2_000_000,
        "the checkpoint holds 535,818 floats");
  }
}
