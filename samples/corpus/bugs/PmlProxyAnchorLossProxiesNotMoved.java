package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Optimizer;
import dev.ondevice.optim.Sgd;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * pytorch-metric-learning: {@code ProxyAnchorLoss(num_classes, embedding_size)} is a loss module
 * with learnable {@code self.proxies}; the user gives it its own optimizer and passes it in the
 * {@code loss_funcs} dict of a {@code MetricLossOnly} trainer, which moves the trunk and embedder
 * models to the device and feeds their embeddings to each loss.
 *
 * <p>Source: https://github.com/KevinMusgrave/pytorch-metric-learning/issues/139
 *
 * <p>Bug: "{@code self.proxies} ... doesn't move to the same device as {@code embeddings}": nothing
 * moves the loss function, so the proxies stay on the CPU while the embeddings are on CUDA; fixed
 * in the library by moving the proxies to the embeddings' device inside the loss.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class PmlProxyAnchorLossProxiesNotMoved {
  private PmlProxyAnchorLossProxiesNotMoved() {}

  /** losses/proxy_anchor_loss.py (alpha 32, margin 0.1). */
  static final class ProxyAnchorLoss extends Model {
    final int numClasses;
    final Parameter proxies;
    final double margin = 0.1;
    final double alpha = 32;

    ProxyAnchorLoss(int numClasses, int embeddingSize) {
      this.numClasses = numClasses;
      this.proxies = new Parameter(Tensor.randn(Shape.of(numClasses, embeddingSize)).mul(0.1));
    }

    static Tensor l2Normalize(Tensor x) {
      return x.div(x.square().sum(1, true).sqrt().clampMin(1e-12));
    }

    Tensor computeLoss(Tensor embeddings, Tensor labels) {
      Tensor cos = l2Normalize(embeddings).matmul(l2Normalize(proxies).t()); // bug: training-state
      Tensor pOneHot = Tensor.oneHot(labels, numClasses).to(embeddings.dtype());
      Tensor nOneHot = pOneHot.rsub(1);
      Tensor posExp = cos.sub(margin).mul(-alpha).exp();
      Tensor negExp = cos.add(margin).mul(alpha).exp();
      Tensor withPosProxies = pOneHot.sum(0).ne(0);
      Tensor numValidProxies = withPosProxies.sum().to(embeddings.dtype());
      Tensor pSimSum = Tensor.where(pOneHot.eq(1), posExp, Tensor.zerosLike(posExp)).sum(0);
      Tensor nSimSum = Tensor.where(nOneHot.eq(1), negExp, Tensor.zerosLike(negExp)).sum(0);
      Tensor posTerm = pSimSum.log1p().sum().div(numValidProxies);
      Tensor negTerm = nSimSum.log1p().sum().div(numClasses);
      return posTerm.add(negTerm);
    }
  }

  /** trainers/metric_loss_only.py on top of base_trainer.py. */
  static final class MetricLossOnly {
    final Map<String, Sequential> models;
    final Map<String, Optimizer> optimizers;
    final Map<String, ProxyAnchorLoss> lossFuncs;
    final DataLoader loader;
    final Device dataDevice;

    MetricLossOnly(Map<String, Sequential> models, Map<String, Optimizer> optimizers,
        Map<String, ProxyAnchorLoss> lossFuncs, DataLoader loader, Device dataDevice) {
      this.models = models;
      this.optimizers = optimizers;
      this.lossFuncs = lossFuncs;
      this.loader = loader;
      this.dataDevice = dataDevice;
      for (Sequential m : models.values()) {
        m.toDevice(dataDevice);
      }
    }

    Tensor computeEmbeddings(Tensor data) {
      Tensor trunkOutput = models.get("trunk").forward(data.to(dataDevice));
      return models.get("embedder").forward(trunkOutput);
    }

    void train(int numEpochs) {
      for (int epoch = 0; epoch < numEpochs; epoch++) {
        for (Batch batch : loader) {
          optimizers.values().forEach(Optimizer::zeroGrad);
          Tensor embeddings = computeEmbeddings(batch.inputs());
          Tensor labels = batch.targets().to(dataDevice);
          Tensor loss = lossFuncs.get("metric_loss").computeLoss(embeddings, labels); // same bug
          loss.backward();
          optimizers.values().forEach(Optimizer::step);
        }
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Sequential trunk = new Sequential(new Linear(20, 64), new ReLU());
    Sequential embedder = new Sequential(new Linear(64, 16));
    ProxyAnchorLoss lossFunc = new ProxyAnchorLoss(5, 16);
    Map<String, Sequential> models = new LinkedHashMap<>();
    models.put("trunk", trunk);
    models.put("embedder", embedder);
    Map<String, Optimizer> optimizers = new LinkedHashMap<>();
    optimizers.put("trunk_optimizer", new Sgd(trunk.parameters(), 0.01));
    optimizers.put("embedder_optimizer", new Sgd(embedder.parameters(), 0.01));
    optimizers.put("metric_loss_optimizer", new Sgd(lossFunc.parameters(), 0.01));
    Map<String, ProxyAnchorLoss> lossFuncs = Map.of("metric_loss", lossFunc);
    TensorDataset dataset = new TensorDataset(Tensor.randn(40, 20), Tensor.randint(0, 5, Shape.of(40)));
    DataLoader loader = DataLoader.builder(dataset).batchSize(10).shuffle(0).build();
    MetricLossOnly trainer = new MetricLossOnly(models, optimizers, lossFuncs, loader, device);
    trainer.train(1);
  }
}
