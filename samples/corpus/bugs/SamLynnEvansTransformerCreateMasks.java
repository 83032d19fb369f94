package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * SamLynnEvans/Transformer's training loop: batches come from a torchtext iterator with
 * {@code src} and {@code trg} as {@code [seq, batch]} tensors; {@code train_model} transposes them,
 * and {@code create_masks} (in Batch.py) builds the padding masks from them and combines the target
 * mask with the no-peek mask of {@code nopeak_mask}, which puts that mask on the GPU when
 * {@code opt.device == 0}.
 *
 * <p>Source: https://github.com/SamLynnEvans/Transformer/issues/17 (same error in issue #2; fixed by
 * PR #32, commit 82f51e0, "better management of cuda or cpu")
 *
 * <p>Bug: the iterator is given {@code device=opt.device} as an int, which torchtext no longer
 * honours ("The `device` argument should be set by using `torch.device` ... currently defaults to
 * cpu"), and {@code train_model} never moves {@code src} and {@code trg}; {@code create_masks} then
 * combines the CPU target mask with the CUDA no-peek mask ({@code trg_mask & np_mask}: "Expected
 * object of backend CPU but got backend CUDA"). The fix moves {@code src} and {@code trg} with
 * {@code .to(opt.device)} in train.py and the masks in Batch.py; in Batch.py it also removes
 * {@code if trg.is_cuda: np_mask.cuda()}, a move whose result was dropped.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class SamLynnEvansTransformerCreateMasks {
  private SamLynnEvansTransformerCreateMasks() {}

  static final class Opt {
    int device;
    int srcPad = 1;
    int trgPad = 1;
    int epochs = 1;
  }

  /** A torchtext batch: {@code [seq, batch]} tensors. */
  record TextBatch(Tensor src, Tensor trg) {}

  /** torchtext's iterator; an int device is deprecated and batches stay on the CPU. */
  static final class MyIterator implements Iterable<TextBatch> {
    final List<TextBatch> batches = new ArrayList<>();

    MyIterator(int n, int batchSize, int device, int vocab) {
      for (int i = 0; i < n; i++) {
        batches.add(new TextBatch(Tensor.randint(2, vocab, Shape.of(7, batchSize)), Tensor.randint(2, vocab, Shape.of(6, batchSize))));
      }
    }

    public Iterator<TextBatch> iterator() {
      return batches.iterator();
    }
  }

  /** Batch.py */
  static final class Batches {
    static Tensor nopeakMask(long size, Opt opt) {
      Tensor npMask = Tensor.arange(size).unsqueeze(0).le(Tensor.arange(size).unsqueeze(1)).unsqueeze(0);
      if (opt.device == 0) {
        npMask = npMask.cuda(); // costs time: CreateThenMove
      }
      return npMask;
    }

    static Tensor[] createMasks(Tensor src, Tensor trg, Opt opt) {
      Tensor srcMask = src.ne(opt.srcPad).unsqueeze(-2);
      Tensor trgMask = null;
      if (trg != null) {
        trgMask = trg.ne(opt.trgPad).unsqueeze(-2);
        long size = trg.size(1);
        Tensor npMask = nopeakMask(size, opt);
        if (trg.device().isCuda()) {
          npMask.cuda(); // bug: in-method
        }
        trgMask = trgMask.logicalAnd(npMask); // same bug
      }
      return new Tensor[] {srcMask, trgMask};
    }
  }

  static final class Attention extends Model {
    final Linear q, k, v, out;
    final int dModel;

    Attention(int dModel) {
      this.dModel = dModel;
      q = new Linear(dModel, dModel); k = new Linear(dModel, dModel); v = new Linear(dModel, dModel); out = new Linear(dModel, dModel);
    }

    Tensor forward(Tensor query, Tensor key, Tensor mask) {
      Tensor scores = q.forward(query).matmul(k.forward(key).transpose(1, 2)).div(Math.sqrt(dModel));
      scores = scores.maskedFill(mask.logicalNot(), -1e9);
      return out.forward(scores.softmax(-1).matmul(v.forward(key)));
    }
  }

  static final class Transformer extends Model {
    final Embedding srcEmbed, trgEmbed;
    final Attention encAttn, decSelfAttn, decCrossAttn;
    final LayerNorm encNorm, decNorm;
    final Linear out;

    Transformer(int srcVocab, int trgVocab, int dModel) {
      srcEmbed = new Embedding(srcVocab, dModel); trgEmbed = new Embedding(trgVocab, dModel);
      encAttn = new Attention(dModel); decSelfAttn = new Attention(dModel); decCrossAttn = new Attention(dModel);
      encNorm = new LayerNorm(dModel); decNorm = new LayerNorm(dModel);
      out = new Linear(dModel, trgVocab);
    }

    Tensor forward(Tensor src, Tensor trg, Tensor srcMask, Tensor trgMask) {
      Tensor x = srcEmbed.forward(src);
      Tensor eOutputs = encNorm.forward(x.add(encAttn.forward(x, x, srcMask)));
      Tensor y = trgEmbed.forward(trg);
      y = y.add(decSelfAttn.forward(y, y, trgMask));
      y = decNorm.forward(y.add(decCrossAttn.forward(y, eOutputs, srcMask)));
      return out.forward(y);
    }
  }

  static void trainModel(Transformer model, Adam optimizer, MyIterator train, Opt opt) {
    model.train();
    CrossEntropyLoss crossEntropy = new CrossEntropyLoss();
    for (int epoch = 0; epoch < opt.epochs; epoch++) {
      double totalLoss = 0;
      for (TextBatch batch : train) {
        Tensor src = batch.src().transpose(0, 1); // bug: across-methods
        Tensor trg = batch.trg().transpose(0, 1); // bug: across-methods
        Tensor trgInput = trg.slice(1, 0, trg.size(1) - 1);
        Tensor[] masks = Batches.createMasks(src, trgInput, opt);
        Tensor preds = model.forward(src, trgInput, masks[0], masks[1]);
        Tensor ys = trg.slice(1, 1, trg.size(1)).contiguous().view(-1);
        optimizer.zeroGrad();
        Tensor loss = crossEntropy.forward(preds.view(-1, preds.size(-1)), ys);
        loss.backward();
        optimizer.step();
        totalLoss += loss.item(); // costs time: HostSyncInLoop
      }
      System.out.printf("epoch %d loss %.4f%n", epoch + 1, totalLoss);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Opt opt = new Opt();
    opt.device = device.isCuda() ? 0 : -1;
    MyIterator train = new MyIterator(4, 3, opt.device, 20);
    Transformer model = new Transformer(20, 20, 16);
    if (opt.device == 0) {
      model.toDevice(Device.cuda());
    }
    Adam optimizer = new Adam(model.parameters(), 0.0001).betas(0.9, 0.98).eps(1e-9);
    trainModel(model, optimizer, train, opt);
  }
}
