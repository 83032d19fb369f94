package gallery.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Cuda;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.annotations.OnDevice;
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
 * Idioms the reviews of real programs found reported by mistake, all correct on any device: a
 * {@code predict} that hands back host tensors, a getter of a host buffer, lengths kept on the host
 * for a packed sequence, pretrained vectors normalised on the host and copied in, the device
 * chosen with an {@code if}, logging every n steps, a last read before a step budget stops the
 * loop, cached batches and a dataset of three tensors, each moved where it is used.
 */
public final class InferenceAndLogging {
  private InferenceAndLogging() {}

  /** A bag-of-embeddings classifier over padded ids, with token counts kept on the host. */
  static final class TextClassifier extends Model {
    final Embedding embedding = new Embedding(50, 8);
    final Linear head = new Linear(8, 2);
    @Buffer @OnDevice("cpu") Tensor counts = Tensor.zeros(Shape.of(50));

    /** ids [B, T] on the model's device; lengths [B] on the host, as pack_padded_sequence wants them. */
    Tensor forward(Tensor ids, Tensor lengths) {
      Tensor h = embedding.forward(ids);
      long[] len = lengths.toLongArray();
      List<Tensor> pooled = new ArrayList<>();
      for (int i = 0; i < len.length; i++) {
        pooled.add(h.select(0, i).narrow(0, 0, len[i]).mean(0));
      }
      return head.forward(Tensor.stack(pooled, 0));
    }

    /** Class indices on the host, for a confusion matrix kept there. */
    Tensor predict(Tensor ids, Tensor lengths) {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        return forward(ids, lengths).argmax(1, false).cpu();
      }
    }

    Tensor counts() {
      return counts;
    }

    /** Copies host vectors in, normalised on the host. */
    void loadPretrained(Tensor vectors) {
      Tensor norms = vectors.square().sum(1, true).sqrt().maximum(Tensor.full(Shape.of(1, 1), 1e-8));
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        embedding.weight().assign(vectors.div(norms));
      }
    }
  }

  /** The device, chosen with statements. */
  static Device pick(String[] args) {
    Device device;
    if (args.length > 0) {
      device = Device.parse(args[0]);
    } else if (Cuda.isAvailable()) {
      device = Device.cuda(0);
    } else {
      device = Device.cpu();
    }
    return device;
  }

  /** Trains for at most {@code maxSteps} steps, logging every 10; returns the host predictions of the last batch. */
  static Tensor run(String[] args, int maxSteps) {
    Device device = pick(args);
    long[] lengths = {3, 1, 4, 2, 4, 4, 1, 2};
    Tensor ids = Tensor.randint(1, 50, Shape.of(8, 4));
    Tensor labels = Tensor.of(0L, 1L, 0L, 1L, 1L, 0L, 1L, 0L);
    DataLoader loader = DataLoader.builder(new TensorDataset(ids, labels, Tensor.of(lengths))).batchSize(4).build();
    TextClassifier model = new TextClassifier();
    model.loadPretrained(Tensor.randn(Shape.of(50, 8)));
    model.toDevice(device);
    Sgd sgd = new Sgd(model.parameters(), 0.1);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    List<Batch> seen = new ArrayList<>();
    int step = 0;
    training:
    for (int epoch = 0; epoch < 3; epoch++) {
      for (Batch b : loader) {
        Tensor loss = criterion.forward(model.forward(b.inputs().to(device), b.tensor(2)), b.targets().to(device));
        sgd.zeroGrad();
        loss.backward();
        sgd.step();
        seen.add(b);
        if (++step % 10 == 0) {
          System.out.printf("step %d, loss %.4f%n", step, loss.item());
        }
        if (step == maxSteps) {
          System.out.printf("stopped at step %d, loss %.4f%n", step, loss.item());
          break training;
        }
      }
    }
    Tensor correct = Tensor.zeros(Shape.scalar(), device);
    Tensor predicted = null;
    for (Batch b : seen) {
      predicted = model.predict(b.inputs().to(device), b.tensor(2));
      Tensor hits = predicted.eq(b.targets());
      correct = correct.add(hits.sum().to(device));
    }
    System.out.println("counted tokens " + model.counts().sum().item() + ", hits " + correct.item());
    return predicted;
  }
}
