package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;

/**
 * bentrevett/pytorch-pos-tagging, "Fine-tuning Pretrained Transformers for PoS Tagging": a
 * transformer encoder with a linear tagging head; every batch the training loop computes the loss
 * and the accuracy over non-pad tokens with {@code categorical_accuracy}.
 *
 * <p>Source: https://github.com/bentrevett/pytorch-pos-tagging/pull/5
 *
 * <p>Bug: {@code categorical_accuracy} returned
 * {@code correct.sum() / torch.FloatTensor([y[non_pad_elements].shape[0]])}: the one-element
 * denominator is a CPU tensor (not 0-dim) while {@code correct} is on the GPU with the predictions.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class PosTaggingAccuracyFloatTensorCpu {
  private PosTaggingAccuracyFloatTensorCpu() {}

  static final int TAG_PAD_IDX = 0;

  static final class BertPosTagger extends Model {
    final Embedding bert = new Embedding(50, 16);        // stands for the pretrained BERT encoder
    final Linear fc = new Linear(16, 6);
    final Dropout dropout = new Dropout(0.25);

    Tensor forward(Tensor text) {
      return fc.forward(dropout.forward(bert.forward(text).tanh()));
    }
  }

  static Tensor categoricalAccuracy(Tensor preds, Tensor y, int tagPadIdx) {
    Tensor maxPreds = preds.argmax(1, true);
    Tensor nonPad = y.ne(tagPadIdx);
    Tensor correct = maxPreds.squeeze(1).eq(y).logicalAnd(nonPad);
    long nonPadCount = nonPad.to(DType.INT64).sum().itemAsLong(); // costs time: HostSyncInLoop
    return correct.to(DType.FLOAT32).sum().div(Tensor.of(new float[] {nonPadCount}));   // bug: across-methods
  }

  /** CrossEntropyLoss(ignore_index = TAG_PAD_IDX). */
  static Tensor criterion(Tensor predictions, Tensor tags) {
    Tensor nll = predictions.logSoftmax(1).gather(1, tags.unsqueeze(1)).squeeze(1).neg();
    Tensor keep = tags.ne(TAG_PAD_IDX).to(DType.FLOAT32);
    return nll.mul(keep).sum().div(keep.sum());
  }

  static double[] train(BertPosTagger model, DataLoader iterator, Adam optimizer, Device device) {
    double epochLoss = 0;
    double epochAcc = 0;
    model.train();
    for (Batch batch : iterator) {
      Tensor text = batch.inputs().to(device);
      Tensor tags = batch.targets().to(device);
      optimizer.zeroGrad();
      Tensor predictions = model.forward(text);
      predictions = predictions.view(-1, predictions.size(-1));
      tags = tags.view(-1);
      Tensor loss = criterion(predictions, tags);
      Tensor acc = categoricalAccuracy(predictions, tags, TAG_PAD_IDX);
      loss.backward();
      optimizer.step();
      epochLoss += loss.item(); // costs time: HostSyncInLoop
      epochAcc += acc.item(); // costs time: HostSyncInLoop
    }
    return new double[] {epochLoss / iterator.numBatches(), epochAcc / iterator.numBatches()};
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    BertPosTagger model = new BertPosTagger();
    model.toDevice(device);
    Adam optimizer = new Adam(model.parameters(), 5e-5);
    TensorDataset data = new TensorDataset(Tensor.randint(1, 50, Shape.of(16, 7)),
        Tensor.randint(0, 6, Shape.of(16, 7)));
    train(model, DataLoader.builder(data).batchSize(4).build(), optimizer, device);
  }
}
