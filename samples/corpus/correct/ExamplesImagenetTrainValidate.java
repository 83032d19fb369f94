package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Optimizer;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.List;

/**
 * The PyTorch ImageNet example's {@code train} and {@code validate}: every batch moved to the device,
 * top-1/top-5 accuracy from the {@code accuracy(output, target, topk)} helper, and running averages
 * kept by {@code AverageMeter} objects (the accuracy meters hold device tensors).
 *
 * <p>Source: https://github.com/pytorch/examples/blob/main/imagenet/main.py
 *
 * <p>Ported: train, validate (with its inner run_validate), AverageMeter (update, __str__) and
 * accuracy as written, including {@code losses.update(loss.item(), n)} on every batch; the device of
 * main_worker and of validate comes from the accelerator, as in the original. Left out: distributed
 * training, ProgressMeter and Summary (the meters are printed directly), timing meters, checkpoints,
 * torchvision models (a small MLP here). The API has no {@code topk}: accuracy takes the k largest
 * by repeated argmax and masking, the closest equivalent. Loss objects have no {@code .to(device)}.
 *
 * <p>Outcome: completes
 */
public final class ExamplesImagenetTrainValidate {
  private ExamplesImagenetTrainValidate() {}

  record Args(boolean noAccel, int printFreq) {}

  /** Computes and stores the average and current value. */
  static final class AverageMeter {
    final String name;
    Tensor val, sum, avg;
    long count;

    AverageMeter(String name) {
      this.name = name;
      reset();
    }

    void reset() {
      val = avg = sum = Tensor.scalar(0.0);
      count = 0;
    }

    void update(double v, long n) {
      update(Tensor.scalar(v), n);
    }

    void update(Tensor v, long n) {
      val = v;
      sum = sum.add(v.mul(n));
      count += n;
      avg = sum.div((double) count);
    }

    @Override
    public String toString() {
      return String.format("%s %.4f (%.4f)", name, val.item(), avg.item());
    }
  }

  /** Computes the accuracy over the k top predictions for the specified values of k. */
  static List<Tensor> accuracy(Tensor output, Tensor target, int... topk) {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      int maxk = java.util.Arrays.stream(topk).max().getAsInt();
      long batchSize = target.size(0);
      List<Tensor> ranks = new ArrayList<>();
      Tensor remaining = output;
      for (int j = 0; j < maxk; j++) {
        Tensor p = remaining.argmax(1, false);
        ranks.add(p);
        remaining = remaining.maskedFill(Tensor.oneHot(p, (int) output.size(1)).eq(1), Double.NEGATIVE_INFINITY);
      }
      Tensor pred = Tensor.stack(ranks, 0); // pred.t() of topk's indices
      Tensor correct = pred.eq(target.view(1, -1).expandAs(pred));
      List<Tensor> res = new ArrayList<>();
      for (int k : topk) {
        Tensor correctK = correct.slice(0, 0, k).reshape(-1).to(DType.FLOAT32).sum(0, true);
        res.add(correctK.mul(100.0 / batchSize));
      }
      return res;
    }
  }

  static void train(DataLoader trainLoader, Layer model, CrossEntropyLoss criterion, Optimizer optimizer, int epoch,
      Device device, Args args) {
    AverageMeter losses = new AverageMeter("Loss");
    AverageMeter top1 = new AverageMeter("Acc@1");
    AverageMeter top5 = new AverageMeter("Acc@5");
    model.train();
    int i = 0;
    for (Batch batch : trainLoader) {
      Tensor images = batch.inputs().to(device, true);
      Tensor target = batch.targets().to(device, true);
      Tensor output = model.forward(images);
      Tensor loss = criterion.forward(output, target);
      List<Tensor> acc = accuracy(output, target, 1, 5);
      losses.update(loss.item(), images.size(0)); // costs time: HostSyncInLoop
      top1.update(acc.get(0).select(0, 0), images.size(0));
      top5.update(acc.get(1).select(0, 0), images.size(0));
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
      if (i % args.printFreq() == 0) {
        System.out.println("Epoch: [" + epoch + "][" + (i + 1) + "]\t" + losses + "\t" + top1 + "\t" + top5);
      }
      i++;
    }
  }

  static Tensor validate(DataLoader valLoader, Layer model, CrossEntropyLoss criterion, Args args) {
    boolean useAccel = !args.noAccel() && Device.cudaIfAvailable().isCuda();
    AverageMeter losses = new AverageMeter("Loss");
    AverageMeter top1 = new AverageMeter("Acc@1");
    AverageMeter top5 = new AverageMeter("Acc@5");
    model.eval();
    runValidate(valLoader, model, criterion, args, useAccel, losses, top1, top5);
    System.out.printf(" * Acc@1 %.3f Acc@5 %.3f%n", top1.avg.item(), top5.avg.item());
    return top1.avg;
  }

  static void runValidate(DataLoader loader, Layer model, CrossEntropyLoss criterion, Args args, boolean useAccel,
      AverageMeter losses, AverageMeter top1, AverageMeter top5) {
    Device device = useAccel ? Device.cudaIfAvailable() : Device.cpu();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      int i = 0;
      for (Batch batch : loader) {
        Tensor images = batch.inputs();
        Tensor target = batch.targets();
        if (useAccel) {
          images = images.to(device);
          target = target.to(device);
        }
        Tensor output = model.forward(images);
        Tensor loss = criterion.forward(output, target);
        List<Tensor> acc = accuracy(output, target, 1, 5);
        losses.update(loss.item(), images.size(0)); // costs time: HostSyncInLoop
        top1.update(acc.get(0).select(0, 0), images.size(0));
        top5.update(acc.get(1).select(0, 0), images.size(0));
        if (i % args.printFreq() == 0) {
          System.out.println("Test: [" + (i + 1) + "]\t" + losses + "\t" + top1 + "\t" + top5);
        }
        i++;
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Args args = new Args(device.isCpu(), 2);
    Device workerDevice = args.noAccel() ? Device.cpu() : Device.cudaIfAvailable();
    Sequential model = new Sequential(new Flatten(), new Linear(3 * 8 * 8, 32), new ReLU(), new Linear(32, 10));
    model.toDevice(workerDevice);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    Sgd optimizer = new Sgd(model.parameters(), 0.1).momentum(0.9).weightDecay(1e-4);
    DataLoader trainLoader = DataLoader.builder(new TensorDataset(Tensor.randn(Shape.of(32, 3, 8, 8)),
        Tensor.randint(0, 10, Shape.of(32)))).batchSize(8).shuffle(0).pinMemory(true).build();
    DataLoader valLoader = DataLoader.builder(new TensorDataset(Tensor.randn(Shape.of(16, 3, 8, 8)),
        Tensor.randint(0, 10, Shape.of(16)))).batchSize(8).pinMemory(true).build();
    Tensor bestAcc1 = Tensor.scalar(0.0);
    for (int epoch = 0; epoch < 2; epoch++) {
      train(trainLoader, model, criterion, optimizer, epoch, workerDevice, args);
      Tensor acc1 = validate(valLoader, model, criterion, args);
      boolean isBest = acc1.gt(bestAcc1).itemAsBoolean();
      bestAcc1 = acc1.maximum(bestAcc1);
      System.out.println("epoch " + epoch + (isBest ? " (best)" : ""));
    }
  }
}
