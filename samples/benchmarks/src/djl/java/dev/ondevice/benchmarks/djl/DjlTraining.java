package dev.ondevice.benchmarks.djl;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.Blocks;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.pooling.Pool;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.GradientCollector;
import ai.djl.training.Trainer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import dev.ondevice.Generator;
import dev.ondevice.Tensor;

/**
 * The baseline of the side-by-side benchmark: the MNIST MLP or CNN trained by PyTorch's own CPU
 * kernels through DJL's PyTorch engine, with DJL's {@link Trainer} (SGD lr 0.05 momentum 0.9,
 * softmax cross-entropy, batch 128). The 16 batches are the very values of {@code
 * TrainingBenchmark}'s (drawn by the runtime's generator with seed 0), copied into libtorch tensors
 * once; a round cycles them as that benchmark does and returns samples per second.
 *
 * <p>Each step is DJL's {@code EasyTrain.trainBatch} without its batch splitting and listeners: a
 * forward pass of the block, the loss, the backward pass in a gradient collector, then {@link
 * Trainer#step()}. The step's intermediate tensors live in a per-step manager closed after it.
 */
public final class DjlTraining implements AutoCloseable {
  private static final int BATCH_SIZE = 128;
  private static final int BATCHES = 16;

  private final Model model;
  private final Trainer trainer;
  private final NDManager data;
  private final NDArray[] images = new NDArray[BATCHES];
  private final NDArray[] labels = new NDArray[BATCHES];

  /** Builds {@code block}'s trainer on libtorch's CPU device and prepares the batches. */
  public DjlTraining(String name, Block block) {
    model = Model.newInstance(name, Device.cpu(), "PyTorch");
    model.setBlock(block);
    DefaultTrainingConfig config =
        new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
            .optOptimizer(
                Optimizer.sgd()
                    .setLearningRateTracker(Tracker.fixed(0.05f))
                    .optMomentum(0.9f)
                    .build())
            .optDevices(new Device[] {Device.cpu()});
    trainer = model.newTrainer(config);
    trainer.initialize(new Shape(BATCH_SIZE, 1, 28, 28));
    data = model.getNDManager().newSubManager();
    Generator.manualSeed(0);
    for (int i = 0; i < BATCHES; i++) {
      float[] x =
          Tensor.rand(dev.ondevice.Shape.of(BATCH_SIZE, 1, 28, 28), dev.ondevice.Device.cpu())
              .toFloatArray();
      long[] y =
          Tensor.randint(0, 10, dev.ondevice.Shape.of(BATCH_SIZE), dev.ondevice.Device.cpu())
              .toLongArray();
      images[i] = data.create(x, new Shape(BATCH_SIZE, 1, 28, 28));
      labels[i] = data.create(y, new Shape(BATCH_SIZE));
    }
  }

  /** The MLP 784-512-256-10 with ReLU. */
  public static Block mlp() {
    return new SequentialBlock()
        .add(Blocks.batchFlattenBlock())
        .add(Linear.builder().setUnits(512).build())
        .add(Activation.reluBlock())
        .add(Linear.builder().setUnits(256).build())
        .add(Activation.reluBlock())
        .add(Linear.builder().setUnits(10).build());
  }

  /**
   * The CNN: conv 1->32 3x3 pad 1, ReLU, max-pool 2; conv 32->64 3x3 pad 1, ReLU, max-pool 2;
   * flatten; linear 3136->128, ReLU; linear 128->10.
   */
  public static Block cnn() {
    return new SequentialBlock()
        .add(conv(32))
        .add(Activation.reluBlock())
        .add(Pool.maxPool2dBlock(new Shape(2, 2)))
        .add(conv(64))
        .add(Activation.reluBlock())
        .add(Pool.maxPool2dBlock(new Shape(2, 2)))
        .add(Blocks.batchFlattenBlock())
        .add(Linear.builder().setUnits(128).build())
        .add(Activation.reluBlock())
        .add(Linear.builder().setUnits(10).build());
  }

  private static Block conv(int filters) {
    return Conv2d.builder()
        .setKernelShape(new Shape(3, 3))
        .optPadding(new Shape(1, 1))
        .setFilters(filters)
        .build();
  }

  /**
   * Trains on {@code batches} batches, cycling the prepared ones, and returns samples per second.
   *
   * @throws IllegalStateException if the mean loss of the round is not finite
   */
  public double round(int batches) {
    long start = System.nanoTime();
    float meanLoss;
    try (NDManager roundManager = data.newSubManager()) {
      NDArray total = roundManager.zeros(new Shape());
      for (int b = 0; b < batches; b++) {
        try (NDManager step = roundManager.newSubManager()) {
          NDArray x = images[b % BATCHES];
          NDArray y = labels[b % BATCHES];
          x.tempAttach(step);
          y.tempAttach(step);
          NDArray loss;
          try (GradientCollector collector = trainer.newGradientCollector()) {
            NDList predictions = trainer.forward(new NDList(x));
            loss = trainer.getLoss().evaluate(new NDList(y), predictions);
            collector.backward(loss);
          }
          trainer.step();
          total.addi(loss);
        }
      }
      meanLoss = total.getFloat() / batches;
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (!Float.isFinite(meanLoss)) {
      throw new IllegalStateException("DJL training diverged: mean loss " + meanLoss);
    }
    return batches * (double) BATCH_SIZE / seconds;
  }

  /** Closes the trainer, the model and their tensors. */
  @Override
  public void close() {
    trainer.close();
    model.close();
  }
}
