package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

/**
 * SuperNNova {@code train_swag}: a light-curve classifier is trained with Adam while a
 * {@code SwagModel} (Stochastic Weight Averaging Gaussian, a modified
 * {@code torch.optim.swa_utils.AveragedModel}) averages its weights from {@code swag_start_epoch}
 * on, keeping per-parameter second moments and deviation columns; two epochs later the training
 * set is evaluated with SWAG samples drawn from those averages ({@code eval_step_swag}).
 *
 * <p>Source: https://github.com/supernnova/SuperNNova/pull/141 (issue #140; fix commit 80a059e,
 * "swag to cuda")
 *
 * <p>Bug: {@code swag_rnn = SwagModel(rnn)} deep-copies the model while it is still on the CPU, and
 * the GPU preparation moves only {@code rnn} and the criterion; the averages (which
 * {@code update_parameters} keeps on their own device) and every sampled model stay on the CPU,
 * while {@code get_data_batch} puts the batches on the GPU, so {@code sample_model(packed_tensor)}
 * fails. The fix adds {@code swag_rnn.cuda()} next to {@code rnn.cuda()}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class SuperNnovaSwagModelNotMoved {
  private SuperNnovaSwagModelNotMoved() {}

  static final int NB_EPOCH = 5;
  static final int SWAG_START_EPOCH = 1;
  static final int BATCH_SIZE = 8;
  static final double SWAG_SCALE = 0.5;

  /** A stand-in for {@code VanillaRNN}: an input layer applied at each step, averaged over time. */
  static final class Rnn extends Model {
    final Linear inputLayer = new Linear(4, 16);
    final Linear outputLayer = new Linear(16, 2);

    Tensor forward(Tensor x) {           // x: [L, B, D]
      return outputLayer.forward(inputLayer.forward(x).tanh().mean(0));
    }
  }

  /** The per-parameter buffers {@code sec_moment_<i>} and {@code dev_<i>} of {@code SwagModel}. */
  static final class Moments extends Model {
    @Buffer Tensor secMoment;
    @Buffer Tensor dev;

    Moments(Parameter p) {
      secMoment = Tensor.zerosLike(p);
      dev = Tensor.zeros(Shape.of(p.numel(), 0), p.device());
    }
  }

  /** {@code supernnova.utils.swag_utils.SwagModel}, with {@code use_buffers=False}. */
  static final class SwagModel extends Model {
    final Supplier<Rnn> factory;
    final Rnn module;
    final List<Moments> moments = new ArrayList<>();
    @Buffer Tensor nAveraged = Tensor.zeros(Shape.scalar(), DType.INT64);

    SwagModel(Rnn model, Supplier<Rnn> factory) {
      this.factory = factory;
      this.module = deepcopy(model);
      for (Parameter p : module.parameters()) {
        moments.add(new Moments(p));
      }
    }

    /** {@code copy.deepcopy}: a new module on the source's device with the source's state. */
    Rnn deepcopy(Rnn source) {
      Rnn copy = factory.get();
      copy.toDevice(source.device());
      copy.loadStateDict(source.stateDict(), true);
      return copy;
    }

    void updateParameters(Rnn model) {
      List<Parameter> selfParam = module.parameters();
      List<Parameter> modelParam = model.parameters();
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        boolean first = nAveraged.itemAsLong() == 0;
        for (int i = 0; i < selfParam.size(); i++) {
          Device device = selfParam.get(i).device();
          Tensor pSwa = selfParam.get(i).detach();
          Tensor pModel = modelParam.get(i).detach().to(device);
          Moments m = moments.get(i);
          if (first) {
            pSwa.copyFrom(pModel);
            m.secMoment = pModel.mul(pModel);
          } else {
            Tensor n = nAveraged.to(device).to(DType.FLOAT32).add(1);
            pSwa.copyFrom(pSwa.add(pModel.sub(pSwa).div(n)));                     // swa_update
            m.secMoment = m.secMoment.add(pModel.mul(pModel).sub(m.secMoment).div(n)); // second_moment_update
            Tensor dev = pModel.sub(pSwa).view(-1, 1);
            m.dev = Tensor.cat(List.of(m.dev, dev), 1);
          }
        }
        nAveraged.addi(1);
      }
    }

    /** Draws a SWAG sample model. */
    Rnn sample(double scale, boolean cov) {
      Rnn sampleModel = deepcopy(module);
      double scaleSqrt = Math.sqrt(scale);
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        List<Parameter> meanList = module.parameters();
        Tensor mean = Tensor.cat(meanList.stream().map(p -> p.detach().contiguous().view(-1)).toList(), 0);
        if (mean.isnan().to(DType.FLOAT32).sum().item() > 0) {
          System.out.println("mean contains NAN value");
        }
        Tensor secMoment = Tensor.cat(moments.stream().map(m -> m.secMoment.contiguous().view(-1)).toList(), 0);
        // draw diagonal variance sample
        Tensor var = secMoment.sub(mean.square()).clampMin(1e-30);
        Tensor randSample = var.sqrt().mul(Tensor.randnLike(var));
        if (cov) {
          Tensor dev = Tensor.cat(moments.stream().map(m -> m.dev).toList(), 0);
          Tensor covSample = dev.matmul(Tensor.randn(Shape.of(dev.size(1)), dev.device()));
          covSample = covSample.div(nAveraged.sub(2).to(DType.FLOAT32).sqrt());
          randSample = randSample.add(covSample);
        }
        Tensor sample = mean.add(randSample.mul(scaleSqrt));
        // update sample model
        long offset = 0;
        for (Parameter p : sampleModel.parameters()) {
          p.detach().copyFrom(sample.slice(0, offset, offset + p.numel()).view(p.shape().toArray()));
          offset += p.numel();
        }
      }
      return sampleModel;
    }
  }

  /** {@code get_data_batch}: a [L, B, D] batch and its targets, put on the GPU when {@code use_cuda}. */
  static Tensor[] getDataBatch(List<float[][]> listX, List<Long> listTarget, int[] idxs, Device device) {
    int len = listX.get(0).length;
    int dim = listX.get(0)[0].length;
    float[] flat = new float[len * idxs.length * dim];
    long[] target = new long[idxs.length];
    for (int b = 0; b < idxs.length; b++) {
      float[][] x = listX.get(idxs[b]);
      for (int t = 0; t < len; t++) {
        for (int d = 0; d < dim; d++) {
          flat[(t * idxs.length + b) * dim + d] = x[t][d];
        }
      }
      target[b] = listTarget.get(idxs[b]);
    }
    // Move data to GPU if required
    Tensor xTensor = Tensor.of(flat, len, idxs.length, dim).to(device);
    Tensor targetTensor = Tensor.of(target).to(device);
    return new Tensor[] {xTensor, targetTensor};
  }

  static Tensor evalStepSwag(SwagModel model, double scale, boolean cov, Tensor packedTensor) {
    Rnn sampleModel = model.sample(scale, cov);
    sampleModel.eval();
    Tensor output = sampleModel.forward(packedTensor); // same bug
    if (output.isnan().to(DType.FLOAT32).sum().item() > 0) { // costs time: HostSyncInLoop
      System.out.println("sum of sample model output contain NAN value");
    }
    return output;
  }

  /** {@code get_evaluation_metrics}: loss and accuracy over the batches, read back batch by batch. */
  static double[] getEvaluationMetrics(List<float[][]> listX, List<Long> listTarget, Model model, boolean swagSampling, Device device) {
    double correct = 0;
    double nll = 0;
    int n = 0;
    for (int start = 0; start + BATCH_SIZE <= listX.size(); start += BATCH_SIZE) {
      int[] idxs = new int[BATCH_SIZE];
      for (int i = 0; i < BATCH_SIZE; i++) {
        idxs[i] = start + i;
      }
      Tensor[] batch = getDataBatch(listX, listTarget, idxs, device);
      Tensor output;
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        if (swagSampling) {
          output = evalStepSwag((SwagModel) model, SWAG_SCALE, true, batch[0]);
        } else {
          model.eval();
          output = ((Rnn) model).forward(batch[0]);
        }
      }
      float[] predProba = output.softmax(1).toFloatArray(); // costs time: HostSyncInLoop
      long[] targetNumpy = batch[1].toLongArray(); // costs time: HostSyncInLoop
      for (int i = 0; i < BATCH_SIZE; i++) {
        int pred = predProba[2 * i + 1] > predProba[2 * i] ? 1 : 0;
        correct += pred == targetNumpy[i] ? 1 : 0;
        nll -= Math.log(Math.max(predProba[2 * i + (int) targetNumpy[i]], 1e-12));
        n++;
      }
    }
    return new double[] {nll / n, correct / n};
  }

  public static void run(Device device) {
    // Data: toy light curves of 6 steps and 4 features, two classes
    Random rng = new Random(0);
    List<float[][]> listX = new ArrayList<>();
    List<Long> listTarget = new ArrayList<>();
    for (int i = 0; i < 48; i++) {
      long y = rng.nextInt(2);
      float[][] x = new float[6][4];
      for (int t = 0; t < 6; t++) {
        for (int d = 0; d < 4; d++) {
          x[t][d] = (float) (rng.nextGaussian() + (y == 1 ? 0.5 : -0.5));
        }
      }
      listX.add(x);
      listTarget.add(y);
    }

    // Model specification
    Rnn rnn = new Rnn();
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    Adam optimizer = new Adam(rnn.parameters(), 1e-2);

    // Initiate SWAG model
    SwagModel swagRnn = new SwagModel(rnn, Rnn::new); // bug: training-state

    // Prepare for GPU if required
    rnn.toDevice(device);

    for (int epoch = 0; epoch < NB_EPOCH; epoch++) {
      for (int start = 0; start + BATCH_SIZE <= listX.size(); start += BATCH_SIZE) {
        int[] idxs = new int[BATCH_SIZE];
        for (int i = 0; i < BATCH_SIZE; i++) {
          idxs[i] = (start + i + 7 * epoch) % listX.size();
        }
        Tensor[] batch = getDataBatch(listX, listTarget, idxs, device);
        // Train step : forward backward pass
        rnn.train();
        optimizer.zeroGrad();
        Tensor loss = criterion.forward(rnn.forward(batch[0]), batch[1]);
        loss.backward();
        optimizer.step();
      }
      double[] dLossesTrain = getEvaluationMetrics(listX, listTarget, rnn, false, device);
      System.out.printf("epoch %d: loss %.4f, acc %.3f%n", epoch, dLossesTrain[0], dLossesTrain[1]);

      if (epoch >= SWAG_START_EPOCH) {
        swagRnn.updateParameters(rnn);
        // start SWAG sampling when K > 1
        if (epoch >= SWAG_START_EPOCH + 2) {
          double[] dLossesTrainSwag = getEvaluationMetrics(listX, listTarget, swagRnn, true, device);
          System.out.printf("swag metrics: loss %.4f, acc %.3f%n", dLossesTrainSwag[0], dLossesTrainSwag[1]);
        }
      }
    }
  }
}
