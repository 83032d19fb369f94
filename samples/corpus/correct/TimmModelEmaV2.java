package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.BatchNorm1d;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Sgd;
import java.util.Iterator;
import java.util.function.BinaryOperator;

/**
 * timm's ModelEmaV2: an nn.Module holding a deep copy of the model as its submodule {@code module},
 * so the copy lives (and moves) with it; {@code update} blends the model's state dict into the
 * copy's in place after each optimizer step, optionally keeping the copy on the CPU
 * ({@code model_ema_force_cpu}), and the copy is validated with {@code validate(model_ema.module, ...)}.
 *
 * <p>Source: https://github.com/huggingface/pytorch-image-models/blob/main/timm/utils/model_ema.py
 * (usage: train.py at d0ff315eed6562f245169623d998beb0fc4fb4f6, the last version using ModelEmaV2)
 *
 * <p>Ported: ModelEmaV2 (__init__, _update, update, set, forward) as written, and from train.py the
 * order (EMA made after the model is on the device), model_ema.update(model) after each step,
 * losses_m.update(loss.item(), n) per batch, validate (loss and top-1 read per batch, as timm's; the
 * accuracy helper is an argmax here) on model and on model_ema.module unless forced to the
 * CPU; both settings of model_ema_force_cpu run. deepcopy is not in the API: a new model moved to
 * the model's device and loaded from its state dict stands in. Left out: AMP, mixup, gradient
 * accumulation, distributed BN, timm models (a small MLP with a BatchNorm), checkpoint resume.
 *
 * <p>Outcome: completes
 */
public final class TimmModelEmaV2 {
  private TimmModelEmaV2() {}

  static final class Net extends Model {
    final Linear fc1 = new Linear(12, 32);
    final BatchNorm1d bn = new BatchNorm1d(32);
    final Linear fc2 = new Linear(32, 4);

    Tensor forward(Tensor x) {
      return fc2.forward(bn.forward(fc1.forward(x)).relu());
    }
  }

  static Net deepcopy(Net model) {
    Net copy = new Net();
    copy.toDevice(model.device());
    copy.loadStateDict(model.stateDict(), true);
    return copy;
  }

  static final class ModelEmaV2 extends Model {
    final Net module;
    final double decay;
    final Device emaDevice; // perform ema on different device from model if set

    ModelEmaV2(Net model, double decay, Device device) {
      module = deepcopy(model); // make a copy of the model for accumulating moving average of weights
      module.eval();
      this.decay = decay;
      this.emaDevice = device;
      if (emaDevice != null) {
        module.toDevice(emaDevice);
      }
    }

    void _update(Net model, BinaryOperator<Tensor> updateFn) {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        Iterator<Tensor> modelValues = model.stateDict().values().iterator();
        for (Tensor emaV : module.stateDict().values()) {
          Tensor modelV = modelValues.next();
          if (emaDevice != null) {
            modelV = modelV.to(emaDevice);
          }
          emaV.copyFrom(updateFn.apply(emaV, modelV));
        }
      }
    }

    void update(Net model) {
      _update(model, (e, m) -> e.mul(decay).add(m.mul(1. - decay)));
    }

    void set(Net model) {
      _update(model, (e, m) -> m);
    }

    Tensor forward(Tensor x) {
      return module.forward(x);
    }
  }

  static void trainOneEpoch(Net model, DataLoader loader, Sgd optimizer, CrossEntropyLoss lossFn, Device device,
      ModelEmaV2 modelEma) {
    double lossSum = 0;
    long count = 0;
    model.train();
    for (Batch batch : loader) {
      Tensor input = batch.inputs().to(device);
      Tensor target = batch.targets().to(device);
      Tensor output = model.forward(input);
      Tensor loss = lossFn.forward(output, target);
      loss.backward();
      optimizer.step();
      // losses_m.update(loss.item(), input.size(0))
      lossSum += loss.item() * input.size(0); // costs time: HostSyncInLoop
      count += input.size(0);
      optimizer.zeroGrad();
      if (modelEma != null) {
        modelEma.update(model);
      }
    }
    System.out.printf("train loss %.4f%n", lossSum / count);
  }

  static double validate(Net model, DataLoader loader, CrossEntropyLoss lossFn, Device device) {
    double lossSum = 0;
    double top1Sum = 0;
    long count = 0;
    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch batch : loader) {
        Tensor input = batch.inputs().to(device);
        Tensor target = batch.targets().to(device);
        Tensor output = model.forward(input);
        Tensor loss = lossFn.forward(output, target);
        Tensor acc1 = output.argmax(1).eq(target).to(dev.ondevice.DType.FLOAT32).mean().mul(100.0);
        // losses_m.update(reduced_loss.item(), input.size(0))
        lossSum += loss.item() * input.size(0); // costs time: HostSyncInLoop
        // top1_m.update(acc1.item(), output.size(0))
        top1Sum += acc1.item() * output.size(0); // costs time: HostSyncInLoop
        count += input.size(0);
      }
    }
    System.out.printf("eval loss %.4f%n", lossSum / count);
    return top1Sum / count;
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    TensorDataset data = new TensorDataset(Tensor.randn(Shape.of(32, 12)), Tensor.randint(0, 4, Shape.of(32)));
    DataLoader loaderTrain = DataLoader.builder(data).batchSize(8).shuffle(5).build();
    DataLoader loaderEval = DataLoader.builder(data).batchSize(16).build();
    for (boolean modelEmaForceCpu : new boolean[] {false, true}) {
      Net model = new Net();
      model.toDevice(device);
      Sgd optimizer = new Sgd(model.parameters(), 0.05).momentum(0.9);
      CrossEntropyLoss lossFn = new CrossEntropyLoss();
      // Important to create EMA model after cuda(), DP wrapper, and AMP but before DDP wrapper
      ModelEmaV2 modelEma = new ModelEmaV2(model, 0.99, modelEmaForceCpu ? Device.cpu() : null);
      for (int epoch = 0; epoch < 2; epoch++) {
        trainOneEpoch(model, loaderTrain, optimizer, lossFn, device, modelEma);
        double top1 = validate(model, loaderEval, lossFn, device);
        if (!modelEmaForceCpu) {
          top1 = validate(modelEma.module, loaderEval, lossFn, device);
        }
        System.out.printf("epoch %d top1 %.1f (force_cpu=%b)%n", epoch, top1, modelEmaForceCpu);
      }
    }
  }
}
