package corpus.correct;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.List;

/**
 * SimCLR's InfoNCE loss: the pair labels and the diagonal mask are built on the CPU and moved
 * with {@code .to(self.args.device)}, and the logits' target is {@code torch.zeros(n).to(device)};
 * the two augmented views of a batch are concatenated and moved before the forward pass.
 *
 * <p>Source: https://github.com/sthalles/SimCLR/blob/master/simclr.py
 *
 * <p>Ported: the SimCLR trainer object (args, model, optimizer, criterion), info_nce_loss as
 * written (labels from two aranges, {@code F.normalize}, the similarity matrix, the eye mask,
 * positives and negatives, {@code logits / temperature}) and train's loop ({@code torch.cat(images)},
 * {@code .to(self.args.device)}, the loss, top-1 accuracy every log_every_n_steps). Left out:
 * GradScaler/autocast, the tensorboard writer, the scheduler, checkpoints, ResNetSimCLR (a small
 * MLP encoder stands in) and the augmentations (noise added to each view), top-5. Boolean-mask
 * indexing ({@code x[~mask].view(n, -1)}) is not in the API: the kept entries are gathered with
 * index tensors built by the {@code withoutColumn} helper on the mask's device, and the one
 * positive per row (n_views = 2) is found with argmax; the eye mask is its diagonal's column
 * indices, made on the CPU and moved as the eye is.
 *
 * <p>Outcome: completes
 */
public final class SimClrInfoNceLoss {
  private SimClrInfoNceLoss() {}

  record Args(int batchSize, int nViews, double temperature, Device device, int logEveryNSteps, int epochs) {}

  static final class Encoder extends Model {
    final Linear backbone = new Linear(20, 32);
    final Linear projection = new Linear(32, 16);

    Tensor forward(Tensor x) {
      return projection.forward(backbone.forward(x).relu());
    }
  }

  /** Each row of {@code x} without the entry at column {@code col[i]}: {@code x[~mask].view(n, -1)}. */
  static Tensor withoutColumn(Tensor x, Tensor col) {
    long m = x.size(1);
    Tensor j = Tensor.arange(m - 1, col.device()).unsqueeze(0);
    return x.gather(1, j.add(j.ge(col).to(DType.INT64)));
  }

  static final class SimCLR {
    final Args args;
    final Encoder model;
    final Adam optimizer;
    final CrossEntropyLoss criterion = new CrossEntropyLoss();

    SimCLR(Args args, Encoder model, Adam optimizer) {
      this.args = args;
      model.toDevice(args.device());
      this.model = model;
      this.optimizer = optimizer;
    }

    Tensor[] infoNceLoss(Tensor features) {
      List<Tensor> views = new java.util.ArrayList<>();
      for (int i = 0; i < args.nViews(); i++) {
        views.add(Tensor.arange(args.batchSize()));
      }
      Tensor idx = Tensor.cat(views, 0);
      Tensor labels = idx.unsqueeze(0).eq(idx.unsqueeze(1)).to(DType.FLOAT32);
      labels = labels.to(args.device());  // costs time: CreateThenMove
      features = features.div(features.square().sum(1, true).sqrt().clampMin(1e-12));
      Tensor similarityMatrix = features.matmul(features.t());
      long n = labels.size(0);
      Tensor mask = Tensor.arange(n).unsqueeze(1).to(args.device());  // costs time: CreateThenMove
      labels = withoutColumn(labels, mask);
      similarityMatrix = withoutColumn(similarityMatrix, mask);
      Tensor positiveColumn = labels.argmax(1, true);
      Tensor positives = similarityMatrix.gather(1, positiveColumn);
      Tensor negatives = withoutColumn(similarityMatrix, positiveColumn);
      Tensor logits = Tensor.cat(List.of(positives, negatives), 1);
      Tensor target = Tensor.zeros(Shape.of(logits.size(0)), DType.INT64, Device.cpu()).to(args.device());  // costs time: CreateThenMove
      return new Tensor[] {logits.div(args.temperature()), target};
    }

    void train(DataLoader trainLoader) {
      int nIter = 0;
      for (int epoch = 0; epoch < args.epochs(); epoch++) {
        for (Batch batch : trainLoader) {
          Tensor x = batch.inputs();
          List<Tensor> views = List.of(x.add(Tensor.randnLike(x).mul(0.1)), x.add(Tensor.randnLike(x).mul(0.1)));
          Tensor images = Tensor.cat(views, 0);
          images = images.to(args.device());
          Tensor features = model.forward(images);
          Tensor[] logitsAndLabels = infoNceLoss(features);
          Tensor loss = criterion.forward(logitsAndLabels[0], logitsAndLabels[1]);
          optimizer.zeroGrad();
          loss.backward();
          optimizer.step();
          if (nIter % args.logEveryNSteps() == 0) {
            double top1 = logitsAndLabels[0].argmax(1).eq(logitsAndLabels[1]).to(DType.FLOAT32).mean().item() * 100;
            System.out.printf("step %d loss %.4f acc/top1 %.1f%n", nIter, loss.item(), top1);
          }
          nIter++;
        }
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Args args = new Args(8, 2, 0.07, device, 2, 1);
    TensorDataset data = new TensorDataset(Tensor.randn(Shape.of(32, 20)), Tensor.zeros(Shape.of(32)));
    DataLoader loader = DataLoader.builder(data).batchSize(args.batchSize()).shuffle(0).dropLast(true).build();
    Encoder model = new Encoder();
    SimCLR simclr = new SimCLR(args, model, new Adam(model.parameters(), 3e-4));
    simclr.train(loader);
  }
}
