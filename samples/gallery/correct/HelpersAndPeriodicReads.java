package gallery.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Step;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.List;

/**
 * More idioms a review found reported by mistake, all correct on any device: host lengths handed
 * on to the model's own {@code forward}, a {@code predict} that moves its input before anything
 * else, a helper that puts host tensors in a dataset (whose constructor declares them on the CPU),
 * a hidden state made on the model's device, and host reads under every-n-th conditions
 * written in several ways (with {@code &&}, in a {@code ?:}, in the {@code else} of a {@code !=}
 * test, as the guard of a {@code @Step} method, as a blocking copy).
 */
public final class HelpersAndPeriodicReads {
  private HelpersAndPeriodicReads() {}

  /** A tagger over padded ids, with lengths kept on the host. */
  static final class Tagger extends Model {
    final Embedding embedding = new Embedding(50, 8);
    final Linear head = new Linear(8, 2);

    Tensor forward(Tensor ids, Tensor lengths) {
      Tensor h = embedding.forward(ids);
      long[] len = lengths.toLongArray();
      List<Tensor> pooled = new ArrayList<>();
      for (int i = 0; i < len.length; i++) {
        pooled.add(h.select(0, i).narrow(0, 0, len[i]).mean(0));
      }
      return head.forward(Tensor.stack(pooled, 0));
    }

    /** Log-probabilities; the lengths go to forward, which reads them on the host. */
    Tensor score(Tensor ids, Tensor lengths) {
      return forward(ids, lengths).logSoftmax(1);
    }

    /** Class indices on the host, from ids wherever they are. */
    Tensor predict(Tensor ids, Tensor lengths) {
      ids = ids.to(device());
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        return score(ids, lengths).argmax(1, false).cpu();
      }
    }

    /** Batches of host ids and lengths to predict on: the dataset keeps them on the host, where it wants them. */
    DataLoader loaderFor(Tensor ids, Tensor lengths) {
      return DataLoader.builder(new TensorDataset(ids, lengths)).batchSize(4).build();
    }

    /** A first hidden state for a recurrent head, on the model's device. */
    Tensor initHidden(int batch) {
      return Tensor.zeros(batch, 8, device());
    }
  }

  /** Reads the loss on every 10th step only: the other steps return before reading. */
  @Step
  static double logged(Tensor loss, int step) {
    if (step % 10 != 0) {
      return Double.NaN;
    }
    return loss.item();
  }

  /** Trains for two epochs; returns the best loss seen on a logged step. */
  static double run(Device device) {
    long[] lengths = {3, 1, 4, 2, 4, 4, 1, 2};
    Tensor ids = Tensor.randint(1, 50, Shape.of(8, 4));
    Tensor labels = Tensor.of(0L, 1L, 0L, 1L, 1L, 0L, 1L, 0L);
    DataLoader loader = DataLoader.builder(new TensorDataset(ids, labels, Tensor.of(lengths))).batchSize(4).build();
    Tagger model = new Tagger();
    model.toDevice(device);
    Sgd sgd = new Sgd(model.parameters(), 0.1);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    double best = Double.MAX_VALUE;
    int step = 0;
    for (int epoch = 0; epoch < 2; epoch++) {
      for (Batch b : loader) {
        Tensor loss = criterion.forward(model.score(b.inputs().to(device), b.tensor(2)), b.targets().to(device));
        sgd.zeroGrad();
        loss.backward();
        sgd.step();
        step++;
        if (step % 2 == 0 && loss.item() < best) {
          best = loss.item();
        }
        double shown = step % 3 == 0 ? loss.item() : Double.NaN;
        if (step % 4 != 0) {
          continue;
        } else {
          System.out.printf("step %d, loss %.4f (shown %.4f, logged %.4f)%n", step, loss.item(), shown,
              logged(loss, step));
        }
        if (step % 4 == 0) {
          Tensor hostLoss = loss.detach().to(Device.cpu());
          System.out.println("on the host: " + hostLoss);
        }
      }
    }
    Tensor predicted = model.predict(ids, Tensor.of(lengths));
    long scored = 0;
    for (Batch b : model.loaderFor(ids, Tensor.of(lengths))) {
      scored += model.predict(b.inputs(), b.targets()).numel();
    }
    Tensor hidden = model.initHidden(8);
    System.out.println("predicted " + predicted + ", " + scored + " scored in batches, hidden " + hidden.shape());
    return best;
  }
}
