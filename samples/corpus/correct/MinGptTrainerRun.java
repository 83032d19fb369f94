package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.GELU;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import dev.ondevice.optim.Gradients;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * minGPT's {@code Trainer}: it picks the device from the config ("auto": cuda if available), moves the
 * model in its constructor, and in {@code run} builds the optimizer, moves each batch with {@code
 * [t.to(self.device) for t in batch]}, steps with gradient clipping and calls the {@code
 * on_batch_end} callbacks, which log {@code trainer.loss.item()} every so many iterations. After
 * training, the demo prompts the model with {@code torch.tensor([...])[None, ...].to(trainer.device)}
 * and decodes greedily with {@code GPT.generate}.
 *
 * <p>Source: https://github.com/karpathy/minGPT/blob/00aa9cb2edfd85f4bd80d256838ed7eec3088921/mingpt/trainer.py (and mingpt/model.py
 * generate, projects/chargpt/chargpt.py batch_end_callback)
 *
 * <p>Ported: Trainer (__init__, register_callback, trigger_callbacks, run) as written, GPT.forward's
 * position ids ({@code torch.arange(0, t, device=device)}) and loss, generate with {@code
 * do_sample=False}, and the callback. The transformer blocks are reduced to one LayerNorm-MLP block
 * and the optimizer groups of configure_optimizers to one AdamW; the RandomSampler with replacement
 * is a shuffled loader re-iterated on StopIteration as in run. Left out: timing fields.
 *
 * <p>Outcome: completes
 */
public final class MinGptTrainerRun {
  private MinGptTrainerRun() {}

  static final class Gpt extends Model {
    final int blockSize;
    final Embedding wte;
    final Embedding wpe;
    final LayerNorm ln1 = new LayerNorm(32);
    final Linear cFc = new Linear(32, 128);
    final GELU gelu = new GELU();
    final Linear cProj = new Linear(128, 32);
    final LayerNorm lnF = new LayerNorm(32);
    final Linear lmHead;
    final CrossEntropyLoss crossEntropy = new CrossEntropyLoss();

    Gpt(int vocabSize, int blockSize) {
      this.blockSize = blockSize;
      this.wte = new Embedding(vocabSize, 32);
      this.wpe = new Embedding(blockSize, 32);
      this.lmHead = new Linear(32, vocabSize, false, Device.cpu());
    }

    Tensor[] forward(Tensor idx, Tensor targets) {
      Device device = idx.device();
      long t = idx.size(1);
      Tensor pos = Tensor.arange(0, t, device).unsqueeze(0);
      Tensor tokEmb = wte.forward(idx);
      Tensor posEmb = wpe.forward(pos);
      Tensor x = tokEmb.add(posEmb);
      x = x.add(cProj.forward(gelu.forward(cFc.forward(ln1.forward(x)))));
      x = lnF.forward(x);
      Tensor logits = lmHead.forward(x);
      Tensor loss = null;
      if (targets != null) {
        loss = crossEntropy.forward(logits.view(-1, logits.size(-1)), targets.view(-1));
      }
      return new Tensor[] {logits, loss};
    }

    Tensor generate(Tensor idx, int maxNewTokens, double temperature) {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        for (int i = 0; i < maxNewTokens; i++) {
          Tensor idxCond = idx.size(1) <= blockSize ? idx : idx.slice(1, idx.size(1) - blockSize, idx.size(1));
          Tensor logits = forward(idxCond, null)[0];
          logits = logits.select(1, logits.size(1) - 1).div(temperature);
          Tensor probs = logits.softmax(-1);
          Tensor idxNext = probs.argmax(-1, true);
          idx = Tensor.cat(List.of(idx, idxNext), 1);
        }
        return idx;
      }
    }
  }

  static final class TrainerConfig {
    String device = "auto";
    int batchSize = 8;
    double learningRate = 5e-4;
    double gradNormClip = 1.0;
    Integer maxIters = 6;
  }

  static final class Trainer {
    final TrainerConfig config;
    final Gpt model;
    AdamW optimizer;
    final TensorDataset trainDataset;
    final Map<String, List<Consumer<Trainer>>> callbacks = new HashMap<>();
    final Device device;
    int iterNum;
    Tensor loss;

    Trainer(TrainerConfig config, Gpt model, TensorDataset trainDataset) {
      this.config = config;
      this.model = model;
      this.trainDataset = trainDataset;
      if (config.device.equals("auto")) {
        this.device = Device.cudaIfAvailable();
      } else {
        this.device = Device.parse(config.device);
      }
      this.model.toDevice(device);
      System.out.println("running on device " + device);
    }

    void registerCallback(String onevent, Consumer<Trainer> callback) {
      callbacks.computeIfAbsent(onevent, k -> new ArrayList<>()).add(callback);
    }

    void triggerCallbacks(String onevent) {
      for (Consumer<Trainer> callback : callbacks.getOrDefault(onevent, List.of())) {
        callback.accept(this);
      }
    }

    void run() {
      optimizer = new AdamW(model.parameters(), config.learningRate);
      DataLoader trainLoader = DataLoader.builder(trainDataset).batchSize(config.batchSize).shuffle(3407)
          .pinMemory(true).build();
      model.train();
      iterNum = 0;
      Iterator<Batch> dataIter = trainLoader.iterator();
      while (true) {
        if (!dataIter.hasNext()) {
          dataIter = trainLoader.iterator();
        }
        List<Tensor> batch = new ArrayList<>();
        for (Tensor t : dataIter.next().tensors()) {
          batch.add(t.to(device));
        }
        Tensor x = batch.get(0);
        Tensor y = batch.get(1);
        Tensor[] out = model.forward(x, y);
        loss = out[1];
        model.zeroGrad();
        loss.backward();
        Gradients.clipNorm(model.parameters(), config.gradNormClip);
        optimizer.step();
        triggerCallbacks("on_batch_end");
        iterNum += 1;
        if (config.maxIters != null && iterNum >= config.maxIters) {
          break;
        }
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    int vocabSize = 20;
    int blockSize = 8;
    Tensor chunks = Tensor.randint(0, vocabSize, Shape.of(32, blockSize + 1));
    TensorDataset dataset = new TensorDataset(chunks.slice(1, 0, blockSize), chunks.slice(1, 1, blockSize + 1));
    Gpt model = new Gpt(vocabSize, blockSize);
    TrainerConfig config = new TrainerConfig();
    config.device = device.toString();
    Trainer trainer = new Trainer(config, model, dataset);
    trainer.registerCallback("on_batch_end", t -> {
      if (t.iterNum % 2 == 0) {
        System.out.printf("iter %d: train loss %.5f%n", t.iterNum, t.loss.item()); // costs time: HostSyncInLoop
      }
    });
    trainer.run();
    model.eval();
    Tensor x = Tensor.of(new long[] {1, 2, 3}).unsqueeze(0).to(trainer.device); // costs time: CreateThenMove
    Tensor y = model.generate(x, 5, 1.0);
    System.out.println(java.util.Arrays.toString(y.select(0, 0).cpu().toLongArray()));
  }
}
