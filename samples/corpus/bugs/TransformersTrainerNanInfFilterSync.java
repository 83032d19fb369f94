package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import dev.ondevice.optim.Gradients;
import dev.ondevice.optim.LinearWarmup;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * transformers {@code Trainer._inner_training_loop}: each step calls {@code training_step} (which
 * moves the batch dict with {@code _prepare_inputs}, runs the model, backpropagates and returns
 * {@code loss.detach()}), and adds the step's loss to {@code tr_loss}, a tensor kept on the device
 * "to avoid synchronization ... through .item()"; with {@code logging_nan_inf_filter} (on by
 * default) a NaN or infinite step loss is replaced by the running average; {@code
 * _maybe_log_save_evaluate} reads {@code tr_loss} once per logging interval.
 *
 * <p>Source: https://github.com/huggingface/transformers/issues/33693 ("7% of training time with
 * {@code Trainer} is spent on a single line: {@code and (torch.isnan(tr_loss_step) or
 * torch.isinf(tr_loss_step))}")
 *
 * <p>Bug: the filter's condition is a Python {@code if} on two CUDA tensors, so every step waits for
 * the GPU to finish the step before the host may queue the next one (the profile in the issue);
 * keeping the check on the device ({@code torch.where}) removes the sync.
 *
 * <p>Outcome: completes (costs time)
 */
public final class TransformersTrainerNanInfFilterSync {
  private TransformersTrainerNanInfFilterSync() {}

  /** A sequence classifier returning {@code {'loss': ..., 'logits': ...}}. */
  static final class BertForSequenceClassification extends Model {
    final Embedding embeddings = new Embedding(100, 32);
    final Linear pooler = new Linear(32, 32);
    final Linear classifier = new Linear(32, 2);
    final CrossEntropyLoss lossFct = new CrossEntropyLoss();

    Map<String, Tensor> forward(Tensor inputIds, Tensor labels) {
      Tensor pooled = pooler.forward(embeddings.forward(inputIds).mean(1)).tanh();
      Tensor logits = classifier.forward(pooled);
      Map<String, Tensor> out = new HashMap<>();
      out.put("logits", logits);
      if (labels != null) {
        out.put("loss", lossFct.forward(logits, labels));
      }
      return out;
    }
  }

  static final class TrainingArguments {
    Device device;
    boolean loggingNanInfFilter = true;
    int loggingSteps = 2;
    int numTrainEpochs = 2;
    int gradientAccumulationSteps = 1;
    double maxGradNorm = 1.0;
    double learningRate = 5e-5;
  }

  static final class TrainerState {
    int globalStep;
    final List<Map<String, Double>> logHistory = new ArrayList<>();
  }

  static final class Trainer {
    final BertForSequenceClassification model;
    final TrainingArguments args;
    final List<Map<String, Tensor>> trainDataset;
    final TrainerState state = new TrainerState();
    AdamW optimizer;
    LinearWarmup lrScheduler;
    int globalstepLastLogged;

    Trainer(BertForSequenceClassification model, TrainingArguments args, List<Map<String, Tensor>> trainDataset) {
      this.model = model;
      this.args = args;
      this.trainDataset = trainDataset;
      model.toDevice(args.device);
    }

    Map<String, Tensor> prepareInputs(Map<String, Tensor> inputs) {
      Map<String, Tensor> out = new LinkedHashMap<>();
      inputs.forEach((k, v) -> out.put(k, v.to(args.device)));
      return out;
    }

    Tensor computeLoss(BertForSequenceClassification model, Map<String, Tensor> inputs) {
      Map<String, Tensor> outputs = model.forward(inputs.get("input_ids"), inputs.get("labels"));
      return outputs.get("loss");
    }

    Tensor trainingStep(BertForSequenceClassification model, Map<String, Tensor> inputs) {
      model.train();
      inputs = prepareInputs(inputs);
      Tensor loss = computeLoss(model, inputs);
      loss.backward();
      return loss.detach().div(args.gradientAccumulationSteps);
    }

    void maybeLogSaveEvaluate(Tensor trLoss) {
      if (state.globalStep - globalstepLastLogged >= args.loggingSteps) {
        double trLossScalar = trLoss.mean().item(); // costs time: HostSyncInLoop
        trLoss.subi(trLoss);
        Map<String, Double> logs = new LinkedHashMap<>();
        logs.put("loss", Math.round(trLossScalar / (state.globalStep - globalstepLastLogged) * 1e4) / 1e4);
        logs.put("learning_rate", lrScheduler.lastLearningRate());
        state.logHistory.add(logs);
        globalstepLastLogged = state.globalStep;
        System.out.println(logs);
      }
    }

    void train() {
      optimizer = new AdamW(model.parameters(), args.learningRate);
      lrScheduler = new LinearWarmup(optimizer, 0.1, 2);
      Tensor trLoss = Tensor.scalar(0.0).to(args.device); // costs time: CreateThenMove
      model.zeroGrad();
      for (int epoch = 0; epoch < args.numTrainEpochs; epoch++) {
        for (Map<String, Tensor> inputs : trainDataset) {
          Tensor trLossStep = trainingStep(model, inputs);
          if (args.loggingNanInfFilter && (trLossStep.isnan().itemAsBoolean() || trLossStep.abs().eq(Double.POSITIVE_INFINITY).itemAsBoolean())) { // bug: in-method
            trLoss.addi(trLoss.div(1 + state.globalStep - globalstepLastLogged));
          } else {
            if (!trLoss.device().equals(trLossStep.device())) {
              throw new IllegalArgumentException("Calculated loss must be on the original device: " + trLoss.device()
                  + " but device in use is " + trLossStep.device());
            }
            trLoss.addi(trLossStep);
          }
          Gradients.clipNorm(model.parameters(), args.maxGradNorm);
          optimizer.step();
          lrScheduler.step();
          model.zeroGrad();
          state.globalStep += 1;
          maybeLogSaveEvaluate(trLoss);
        }
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    List<Map<String, Tensor>> dataset = new ArrayList<>();
    for (int b = 0; b < 4; b++) {
      Map<String, Tensor> batch = new LinkedHashMap<>();
      batch.put("input_ids", Tensor.randint(0, 100, Shape.of(8, 12)));
      batch.put("labels", Tensor.randint(0, 2, Shape.of(8)));
      dataset.add(batch);
    }
    TrainingArguments args = new TrainingArguments();
    args.device = device;
    Trainer trainer = new Trainer(new BertForSequenceClassification(), args, dataset);
    trainer.train();
  }
}
