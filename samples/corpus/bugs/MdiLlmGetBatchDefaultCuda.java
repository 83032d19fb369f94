package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.util.List;

/**
 * MDI-LLM's GPT-2 training script (nanoGPT style): {@code get_batch} samples random blocks of the
 * token stream, pins them and copies them to the training device with {@code non_blocking=True};
 * the run is on the second GPU ({@code --device cuda:1}).
 *
 * <p>Source: https://github.com/davmacario/MDI-LLM/issues/21
 *
 * <p>Bug: in src/GPT2/sub/data_loader.py {@code get_batch} moved the inputs with
 * {@code x.pin_memory().to("cuda", non_blocking=True)} (the default GPU, cuda:0) but the targets
 * with {@code .to(device)}, so on cuda:1 the model's embedding met inputs on cuda:0 (fixed in
 * 0b8b204 by using {@code device} for both).
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class MdiLlmGetBatchDefaultCuda {
  private MdiLlmGetBatchDefaultCuda() {}

  static final class Gpt extends Model {
    final int blockSize = 8;
    final Embedding wte = new Embedding(40, 16);
    final Embedding wpe = new Embedding(8, 16);
    final Linear lmHead = new Linear(16, 40);

    /** Returns the logits and, with targets, the loss. */
    Tensor[] forward(Tensor idx, Tensor targets) {
      Tensor pos = Tensor.arange(0, idx.size(1), idx.device());
      Tensor x = wte.forward(idx).add(wpe.forward(pos));
      Tensor logits = lmHead.forward(x.tanh());
      Tensor loss = targets == null ? null
          : new CrossEntropyLoss().forward(logits.reshape(-1, 40), targets.reshape(-1));
      return new Tensor[] {logits, loss};
    }
  }

  /** src/GPT2/sub/data_loader.py get_batch */
  static Tensor[] getBatch(Tensor dataset, int batchSize, Device device, int blockSize) {
    Tensor ix = Tensor.randint(0, dataset.size(0) - blockSize, Shape.of(batchSize));
    long[] starts = ix.toLongArray();
    Tensor[] xs = new Tensor[batchSize];
    Tensor[] ys = new Tensor[batchSize];
    for (int i = 0; i < batchSize; i++) {
      xs[i] = dataset.narrow(0, starts[i], blockSize);
      ys[i] = dataset.narrow(0, starts[i] + 1, blockSize);
    }
    Tensor x = Tensor.stack(List.of(xs));
    Tensor y = Tensor.stack(List.of(ys));
    if (device.isCuda()) {
      x = x.pinMemory().to(Device.parse("cuda"), true); // bug: across-methods
      y = y.pinMemory().to(device, true);
    } else {
      x = x.to(device);
      y = y.to(device);
    }
    return new Tensor[] {x, y};
  }

  /** Runs the training loop with small random data on the second GPU. */
  public static void run(Device device) throws Exception {
    Device trainDevice = device.isCuda() ? Device.cuda(1) : device;   // --device cuda:1
    Tensor trainData = Tensor.randint(0, 40, Shape.of(200)).to(DType.INT64);
    Gpt model = new Gpt();
    model.toDevice(trainDevice);
    AdamW optimizer = new AdamW(model.parameters(), 6e-4);
    for (int iter = 0; iter < 3; iter++) {
      Tensor[] batch = getBatch(trainData, 4, trainDevice, model.blockSize);
      Tensor[] out = model.forward(batch[0], batch[1]);
      optimizer.zeroGrad();
      out[1].backward();
      optimizer.step();
    }
  }
}
