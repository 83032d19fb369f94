package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import dev.ondevice.optim.LambdaLr;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * torchtune's {@code LoRAFinetuneRecipeSingleDevice.train()}: the recipe object holds the model,
 * optimizer, loss, scheduler and device; its loop shifts logits and labels for next-token
 * prediction, updates the progress bar, logs metrics every {@code log_every_n_steps}, and steps.
 *
 * <p>Source: https://github.com/meta-pytorch/torchtune/pull/522
 *
 * <p>Bug: {@code pbar.set_description(f"{curr_epoch+1}|{idx+1}|Loss: {loss.item()}")} runs on every
 * step, outside the {@code log_every_n_steps} block: profiling showed 40-50 ms of
 * cudaStreamSynchronize per step (fix: move it into the logging block).
 *
 * <p>Outcome: completes (costs time)
 */
public final class TorchtuneLoraLossItem {
  private TorchtuneLoraLossItem() {}

  static final int VOCAB = 20;

  static final class TinyLm extends Model {
    final Embedding tokEmbeddings = new Embedding(VOCAB, 8);
    final Linear output = new Linear(8, VOCAB);

    Tensor forward(Tensor tokens) {
      return output.forward(tokEmbeddings.forward(tokens));
    }
  }

  static final class LoRAFinetuneRecipeSingleDevice {
    final Device device;
    final TinyLm model = new TinyLm();
    final AdamW optimizer;
    final LambdaLr lrScheduler;
    final CrossEntropyLoss lossFn = new CrossEntropyLoss();
    final DataLoader dataloader;
    final int logEveryNSteps = 10;
    final int totalEpochs = 1;
    int epochsRun = 0;
    long totalTrainingSteps = 0;

    LoRAFinetuneRecipeSingleDevice(Device device, DataLoader dataloader) {
      this.device = device;
      this.dataloader = dataloader;
      model.toDevice(device);
      optimizer = new AdamW(model.parameters(), 3e-4);
      lrScheduler = new LambdaLr(optimizer, step -> Math.min(1.0, (step + 1) / 4.0));
    }

    void train() {
      for (int currEpoch = epochsRun; currEpoch < totalEpochs; currEpoch++) {
        int idx = 0;
        for (Batch batch : dataloader) {
          totalTrainingSteps += 1;
          optimizer.zeroGrad();
          Tensor inputIds = batch.inputs().to(device);
          Tensor labels = batch.targets().to(device);
          Tensor logits = model.forward(inputIds);
          logits = logits.slice(1, 0, logits.size(1) - 1).contiguous();
          labels = labels.slice(1, 1, labels.size(1)).contiguous();
          logits = logits.transpose(1, 2);
          Tensor loss = lossFn.forward(logits, labels);

          System.out.println((currEpoch + 1) + "|" + (idx + 1) + "|Loss: " + loss.item()); // bug: in-method

          if (totalTrainingSteps % logEveryNSteps == 0) {
            Map<String, Double> logDict = new LinkedHashMap<>();
            logDict.put("loss", loss.item());
            logDict.put("lr", optimizer.learningRate());
            System.out.println(logDict);
          }
          loss.backward();
          optimizer.step();
          lrScheduler.step();
          idx++;
        }
        epochsRun += 1;
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Tensor tokens = Tensor.randint(0, VOCAB, Shape.of(12, 6));
    DataLoader dataloader = DataLoader.builder(new TensorDataset(tokens, tokens)).batchSize(2).shuffle(0).build();
    LoRAFinetuneRecipeSingleDevice recipe = new LoRAFinetuneRecipeSingleDevice(device, dataloader);
    recipe.train();
  }
}
