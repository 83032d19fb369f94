package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hugging Face JAT (then "gia"): {@code examples/train.py} builds a {@code MixedDataLoader} that
 * interleaves one {@code DataLoader} per task and yields each batch as a dict of tensors, passes it
 * through {@code accelerator.prepare(model, optimizer, train_dataloader, eval_dataloader)}, and
 * trains on {@code model(batch).loss}.
 *
 * <p>Source: https://github.com/huggingface/jat/pull/38 (commit e240548)
 *
 * <p>Bug: accelerate moves the batches only of the {@code DataLoader}s it wraps; the {@code
 * MixedDataLoader} is a plain iterable, so its dict batches stay on the CPU and reach the CUDA
 * model. The fix moves each entry in the training loop: {@code for k, v in batch.items(): batch[k]
 * = v.to(device)}. (The same commit also creates two masks of {@code Embeddings.forward} on the
 * device; that second bug is left fixed here.)
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class JatMixedDataLoaderBatchNotMoved {
  private JatMixedDataLoaderBatchNotMoved() {}

  /** {@code gia/datasets/batch_generator.py MixedDataLoader}: round-robin over the task loaders. */
  static final class MixedDataLoader implements Iterable<Map<String, Tensor>> {
    final List<DataLoader> loaders;

    MixedDataLoader(List<DataLoader> loaders) {
      this.loaders = loaders;
    }

    @Override
    public Iterator<Map<String, Tensor>> iterator() {
      List<Map<String, Tensor>> batches = new ArrayList<>();
      for (DataLoader loader : loaders) {
        for (Batch b : loader) {
          Map<String, Tensor> batch = new LinkedHashMap<>();
          batch.put("continuous_observations", b.inputs());
          batch.put("continuous_actions", b.targets());
          batch.put("continuous_observations_loss_mask", b.tensor(2));
          batches.add(batch);
        }
      }
      return batches.iterator();
    }
  }

  /** {@code accelerator.prepare}: models moved, torch {@code DataLoader}s wrapped, anything else returned as is. */
  static final class Accelerator {
    final Device device;

    Accelerator(Device device) {
      this.device = device;
    }

    void prepare(Model model) {
      model.toDevice(device);
    }

    <T> Iterable<T> prepareDataLoader(Iterable<T> loader) {
      if (loader instanceof DataLoader) {
        throw new UnsupportedOperationException("not used here: a DataLoaderShard moving each batch");
      }
      return loader;
    }
  }

  /** {@code GiaModel} reduced to its continuous-observation path. */
  static final class GiaModel extends Model {
    final Linear obsEmbed = new Linear(6, 16);
    final Embedding separator = new Embedding(1, 16);
    final Linear actionHead = new Linear(16, 2);
    final int separatorToken = 0;

    record Output(Tensor loss) {}

    Output forward(Map<String, Tensor> batch) {
      Tensor obs = batch.get("continuous_observations");                 // [B, L, 6]
      Tensor embeddings = obsEmbed.forward(obs); // same bug
      long batchSize = obs.size(0);
      long seqLen = obs.size(1);
      Tensor separatorToken = Tensor.full(Shape.of(batchSize, seqLen), this.separatorToken, dev.ondevice.DType.INT64, device());
      Tensor separatorEmbeddings = separator.forward(separatorToken);
      Tensor predicted = actionHead.forward(embeddings.add(separatorEmbeddings).tanh());
      Tensor lossMask = batch.get("continuous_observations_loss_mask").unsqueeze(-1);
      Tensor err = predicted.sub(batch.get("continuous_actions")).square().mul(lossMask);
      return new Output(err.sum().div(lossMask.sum().mul(2).add(1e-6)));
    }
  }

  public static void run(Device device) {
    int trainBatchSize = 2;
    int gradientAccumulationSteps = 2;
    List<DataLoader> taskLoaders = new ArrayList<>();
    for (String task : List.of("mujoco-ant", "mujoco-hopper")) {
      TensorDataset dataset = new TensorDataset(Tensor.randn(Shape.of(4, 5, 6)), Tensor.randn(Shape.of(4, 5, 2)),
          Tensor.ones(Shape.of(4, 5)));
      taskLoaders.add(DataLoader.builder(dataset).batchSize(trainBatchSize).shuffle(task.length()).dropLast(true).build());
    }
    Accelerator accelerator = new Accelerator(device);
    GiaModel model = new GiaModel();
    accelerator.prepare(model);
    AdamW optimizer = new AdamW(model.parameters(), 1e-4);
    Iterable<Map<String, Tensor>> trainDataloader = accelerator.prepareDataLoader(new MixedDataLoader(taskLoaders));

    model.train();
    double lossTracking = 0;
    int step = 0;
    for (Map<String, Tensor> batch : trainDataloader) {
      step++;
      Tensor loss = model.forward(batch).loss(); // bug: held-outside-models
      Tensor avgLoss = loss.unsqueeze(0).expand(trainBatchSize).mean();
      lossTracking += avgLoss.item() / gradientAccumulationSteps; // costs time: HostSyncInLoop
      System.out.printf("step %d loss_per_step/train %.4f%n", step, loss.item()); // costs time: HostSyncInLoop
      loss = loss.div(gradientAccumulationSteps);
      loss.backward();
      if (step % gradientAccumulationSteps == 0) {
        optimizer.step();
        optimizer.zeroGrad();
        lossTracking = 0;
      }
    }
  }
}
