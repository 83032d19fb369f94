package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * "Build a Large Language Model From Scratch", exercise 5.4 (continued pretraining): the chapter
 * saves the model and AdamW state after training on the GPU; the exercise loads the checkpoint,
 * builds a new model and optimizer, loads both states, moves the model and calls {@code
 * train_model_simple} again.
 *
 * <p>Source: https://github.com/rasbt/LLMs-from-scratch/issues/232
 *
 * <p>Bug: {@code optimizer.load_state_dict(...)} runs while the new model is on the CPU, so the
 * AdamW state lands on the CPU; {@code model.to(device)} comes after it, and the first {@code
 * optimizer.step()} in {@code train_model_simple} meets GPU parameters with CPU state.
 *
 * <p>Outcome: throws IllegalStateException
 */
public final class LlmsFromScratchResumeOptimizer {
  private LlmsFromScratchResumeOptimizer() {}

  static final int VOCAB = 16;

  /** A stand-in for {@code GPTModel(GPT_CONFIG_124M)}. */
  static final class GptModel extends Model {
    final Embedding tokEmb = new Embedding(VOCAB, 8);
    final Linear outHead = new Linear(8, VOCAB);

    Tensor forward(Tensor inIdx) {
      return outHead.forward(tokEmb.forward(inIdx));
    }
  }

  static Tensor calcLossBatch(Tensor inputBatch, Tensor targetBatch, GptModel model, Device device) {
    inputBatch = inputBatch.to(device);
    targetBatch = targetBatch.to(device);
    Tensor logits = model.forward(inputBatch);
    return new CrossEntropyLoss().forward(logits.flatten(0, 1), targetBatch.flatten());
  }

  static void trainModelSimple(GptModel model, DataLoader trainLoader, AdamW optimizer, Device device, int numEpochs) {
    for (int epoch = 0; epoch < numEpochs; epoch++) {
      model.train();
      for (Batch b : trainLoader) {
        optimizer.zeroGrad();
        Tensor loss = calcLossBatch(b.inputs(), b.targets(), model, device);
        loss.backward();
        optimizer.step();
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Tensor ids = Tensor.randint(0, VOCAB, Shape.of(8, 7));
    DataLoader trainLoader = DataLoader.builder(new TensorDataset(ids.slice(1, 0, 6), ids.slice(1, 1, 7)))
        .batchSize(2).shuffle(123).dropLast(true).build();
    Path dir = Files.createTempDirectory("llm");
    Path file = dir.resolve("model_and_optimizer.safetensors");
    try {
      // Chapter 5: train on the device, then save the model and optimizer.
      GptModel trained = new GptModel();
      trained.toDevice(device);
      AdamW chapterOptimizer = new AdamW(trained.parameters(), 0.0004).weightDecay(0.1);
      trainModelSimple(trained, trainLoader, chapterOptimizer, device, 1);
      Checkpoint.save(file, trained, chapterOptimizer);

      // Exercise 5.4: load everything and continue pretraining.
      Checkpoint checkpoint = Checkpoint.load(file, MapLocation.to(device));
      GptModel model = new GptModel();
      model.loadStateDict(checkpoint.stateDict(), true);
      AdamW optimizer = new AdamW(model.parameters(), 0.0004).weightDecay(0.1);
      optimizer.loadStateDict(checkpoint.optimizerState().orElseThrow()); // bug: training-state
      model.toDevice(device);
      model.train();
      trainModelSimple(model, trainLoader, optimizer, device, 1);
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(dir);
    }
  }
}
