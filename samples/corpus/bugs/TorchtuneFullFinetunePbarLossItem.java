package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;

/**
 * torchtune's {@code recipes/full_finetune_single_device.py}: {@code FullFinetuneRecipeSingleDevice.train}
 * moves each batch of token ids and labels to the device, shifts logits and labels, computes the
 * cross-entropy, shows the loss in the tqdm progress bar, logs loss and learning rate every
 * {@code log_every_n_steps} optimizer steps, and steps the optimizer after
 * {@code gradient_accumulation_steps} micro-batches.
 *
 * <p>Source: https://github.com/meta-pytorch/torchtune/pull/661 (commit bb1aa91)
 *
 * <p>Bug: {@code pbar.set_description(f"...Loss: {loss.item()}")} runs for every batch, a host
 * synchronisation per step (the same loss was moved into the {@code log_every_n_steps} block for the
 * other recipes by #522, and came back out in this one). The fix moves the progress-bar update
 * into that block.
 *
 * <p>Outcome: completes (costs time)
 */
public final class TorchtuneFullFinetunePbarLossItem {
  private TorchtuneFullFinetunePbarLossItem() {}

  /** A small causal LM standing in for {@code llama2_7b}: embedding, norm, output projection. */
  static final class TinyLm extends Model {
    final Embedding tokEmbeddings = new Embedding(32, 16);
    final LayerNorm norm = new LayerNorm(16);
    final Linear output = new Linear(16, 32);

    Tensor forward(Tensor tokens) {
      return output.forward(norm.forward(tokEmbeddings.forward(tokens)).tanh());
    }
  }

  /** The part of {@code FullFinetuneRecipeSingleDevice} that trains. */
  static final class FullFinetuneRecipeSingleDevice {
    final Device device;
    final TinyLm model;
    final AdamW optimizer;
    final CrossEntropyLoss lossFn = new CrossEntropyLoss();
    final DataLoader dataloader;
    final int gradientAccumulationSteps = 1;
    final int logEveryNSteps = 4;
    final int totalEpochs = 2;
    Integer maxStepsPerEpoch = null;
    int epochsRun = 0;
    int totalTrainingSteps = 0;

    FullFinetuneRecipeSingleDevice(Device device, DataLoader dataloader) {
      this.device = device;
      this.model = new TinyLm();
      this.model.toDevice(device);
      this.optimizer = new AdamW(model.parameters(), 2e-5);
      this.dataloader = dataloader;
    }

    void train() {
      // zero out the gradients before starting training
      optimizer.zeroGrad();
      for (int currEpoch = epochsRun; currEpoch < totalEpochs; currEpoch++) {
        int idx = 0;
        for (Batch batch : dataloader) {
          if (maxStepsPerEpoch != null && (idx / gradientAccumulationSteps) == maxStepsPerEpoch) {
            break;
          }
          Tensor inputIds = batch.inputs().to(device);
          Tensor labels = batch.targets().to(device);
          Tensor logits = model.forward(inputIds);
          // Shift so that tokens < n predict n
          logits = logits.slice(1, 0, logits.size(1) - 1).contiguous();
          labels = labels.slice(1, 1, labels.size(1)).contiguous();
          logits = logits.transpose(1, 2);
          // Compute loss
          Tensor loss = lossFn.forward(logits, labels);
          // Note: We're always logging the loss before normalizing it
          System.out.printf("\r%d|%d|Loss: %s", currEpoch + 1, idx + 1, loss.item()); // bug: per-step
          if (totalTrainingSteps % logEveryNSteps == 0) {
            System.out.printf("%nstep %d: loss %.4f, lr %.2e%n", totalTrainingSteps, loss.item(), optimizer.learningRate());
          }

          loss = loss.div(gradientAccumulationSteps);
          loss.backward();
          if ((idx + 1) % gradientAccumulationSteps == 0) {
            optimizer.step();
            optimizer.zeroGrad();
            // Update the number of steps when the weights are updated
            totalTrainingSteps += 1;
          }
          idx++;
        }
        epochsRun += 1;
      }
      System.out.println();
    }
  }

  public static void run(Device device) {
    // input_ids and labels of a padded batch (labels are the input ids, shifted in train())
    Tensor tokens = Tensor.randint(0, 32, Shape.of(32, 12));
    DataLoader dataloader = DataLoader.builder(new TensorDataset(tokens, tokens.clone())).batchSize(4).shuffle(0).build();
    new FullFinetuneRecipeSingleDevice(device, dataloader).train();
  }
}
