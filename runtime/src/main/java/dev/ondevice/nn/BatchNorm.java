package dev.ondevice.nn;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;

/**
 * Batch normalisation over dimension 1 (the channels), PyTorch's {@code _BatchNorm}: the base of
 * {@link BatchNorm1d} and {@link BatchNorm2d}, which differ only in the input ranks they accept.
 *
 * <p>In training mode each channel is normalised with the mean and biased variance of the batch,
 * and the running statistics are updated in place: {@code running = (1 - momentum) * running +
 * momentum * batch}, with the <em>unbiased</em> batch variance for {@code runningVar}, and {@code
 * numBatchesTracked} counts the updates. In evaluation mode the running statistics are used. Then
 * {@code y = xhat * weight + bias} per channel, with weight 1 and bias 0 initially.
 *
 * <p>The running statistics are {@code @Buffer} fields: they move with the model and are in the
 * state dict as {@code runningMean}, {@code runningVar} and {@code numBatchesTracked} (int64,
 * 0-dim), beside {@code weight} and {@code bias}.
 */
public abstract class BatchNorm extends Layer {
  final Parameter weight;
  final Parameter bias;
  @Buffer Tensor runningMean;
  @Buffer Tensor runningVar;
  @Buffer Tensor numBatchesTracked;
  private final String name;
  private final int minRank;
  private final int maxRank;
  private final String ranks;
  private final int numFeatures;
  private final double eps;
  private final double momentum;

  /**
   * A layer named {@code name} for inputs of {@code minRank} to {@code maxRank} dimensions, which
   * {@code ranks} describes in messages.
   */
  BatchNorm(
      String name,
      int minRank,
      int maxRank,
      String ranks,
      int numFeatures,
      double eps,
      double momentum,
      boolean affine,
      Device device) {
    if (numFeatures <= 0 || !(eps > 0) || !(momentum >= 0 && momentum <= 1)) {
      throw new IllegalArgumentException(
          name
              + ": numFeatures must be positive, eps positive and momentum in"
              + " [0, 1], got numFeatures="
              + numFeatures
              + ", eps="
              + eps
              + ", momentum="
              + momentum);
    }
    this.name = name;
    this.minRank = minRank;
    this.maxRank = maxRank;
    this.ranks = ranks;
    this.numFeatures = numFeatures;
    this.eps = eps;
    this.momentum = momentum;
    this.weight = affine ? new Parameter(Tensor.ones(Shape.of(numFeatures), device)) : null;
    this.bias = affine ? new Parameter(Tensor.zeros(Shape.of(numFeatures), device)) : null;
    this.runningMean = Tensor.zeros(Shape.of(numFeatures), device);
    this.runningVar = Tensor.ones(Shape.of(numFeatures), device);
    this.numBatchesTracked = Tensor.zeros(Shape.scalar(), DType.INT64, device);
  }

  /** The scale per channel, shape {@code [C]}, or null without affine parameters. */
  public Parameter weight() {
    return weight;
  }

  /** The shift per channel, shape {@code [C]}, or null without affine parameters. */
  public Parameter bias() {
    return bias;
  }

  /** The running mean per channel (a buffer). */
  public Tensor runningMean() {
    return runningMean;
  }

  /** The running unbiased variance per channel (a buffer). */
  public Tensor runningVar() {
    return runningVar;
  }

  /** The number of training batches seen: an int64 0-dim buffer. */
  public Tensor numBatchesTracked() {
    return numBatchesTracked;
  }

  /**
   * Normalises {@code x} per channel (dimension 1), with batch statistics in training mode and the
   * running ones in evaluation mode.
   *
   * @throws IllegalArgumentException on a rank the layer does not accept, a channel count other
   *     than {@code numFeatures}, or a single value per channel in training mode
   */
  @Override
  public Tensor forward(Tensor x) {
    if (x.dim() < minRank || x.dim() > maxRank) {
      throw new IllegalArgumentException(
          name + ": expected a " + ranks + " input, got shape " + x.shape());
    }
    if (x.size(1) != numFeatures) {
      throw new IllegalArgumentException(
          name
              + ": expected "
              + numFeatures
              + " channels (dimension 1), got an"
              + " input of shape "
              + x.shape());
    }
    int[] dims = new int[x.dim() - 1];
    long[] perChannel = new long[x.dim()];
    for (int d = 0, k = 0; d < x.dim(); d++) {
      perChannel[d] = d == 1 ? numFeatures : 1;
      if (d != 1) {
        dims[k++] = d;
      }
    }
    Tensor normalized;
    if (isTraining()) {
      long count = x.numel() / numFeatures;
      if (count <= 1) {
        throw new IllegalArgumentException(
            name
                + ": expected more than 1 value per channel when training, got"
                + " an input of shape "
                + x.shape());
      }
      Tensor mean = x.mean(dims, true);
      Tensor var = x.var(dims, false, true);
      track(mean, var, count);
      normalized = x.sub(mean).mul(var.add(eps).rsqrt());
    } else {
      normalized =
          x.sub(runningMean.view(perChannel)).mul(runningVar.view(perChannel).add(eps).rsqrt());
    }
    return weight == null
        ? normalized
        : normalized.mul(weight.view(perChannel)).add(bias.view(perChannel));
  }

  /**
   * Updates the running statistics with a batch's mean and biased variance over {@code count}
   * values.
   */
  private void track(Tensor mean, Tensor biasedVar, long count) {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      runningMean.muli(1 - momentum).addi(mean.reshape(numFeatures), momentum);
      runningVar
          .muli(1 - momentum)
          .addi(biasedVar.reshape(numFeatures), momentum * count / (count - 1));
      numBatchesTracked.addi(1);
    }
  }

  @Override
  protected String describe() {
    return numFeatures + ", eps=" + eps + ", momentum=" + momentum + ", affine=" + (weight != null);
  }
}
