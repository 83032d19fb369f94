package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * PyPOTS' Transformer forecaster: {@code _Transformer.forward(inputs)} embeds the observed window
 * and the forecast window with SAITS embeddings (values concatenated with their missing mask,
 * projected, plus a positional encoding), runs an encoder and a decoder and projects the decoder
 * output; in training the forecast window {@code X_pred} comes from the batch, in evaluation it is
 * built inside forward as zeros with a mask of ones. The {@code BaseNNForecaster}-style wrapper
 * assembles each batch dict on the device, trains, and validates every epoch.
 *
 * <p>Source: https://github.com/WenjieDu/PyPOTS/issues/625 (fixed by PR #626, commit 5e5e3dd3
 * "constructed X_pred and decoder are not on the same device when running on CUDA")
 *
 * <p>Bug: in evaluation {@code X_pred, X_pred_missing_mask = torch.zeros(batch_size,
 * self.n_pred_steps, self.n_pred_features), torch.ones(...)} are created on the CPU and handed to
 * {@code self.decoder_saits_embedding}, whose CUDA projection meets them; training works, the first
 * validation fails. The fix passes {@code device=X.device}.
 *
 * <p>Ported: the encoder and decoder are one attention layer each (self-attention, and
 * cross-attention in the decoder), single-head; the masked MSE is written out.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class PypotsTransformerPredZerosOnCpu {
  private PypotsTransformerPredZerosOnCpu() {}

  static Tensor calcMse(Tensor predictions, Tensor targets, Tensor masks) {
    return predictions.sub(targets).square().mul(masks).sum().div(masks.sum().add(1e-12));
  }

  /** The SAITS embedding: cat(X, missing_mask) projected to d_model, plus a sinusoidal position. */
  static final class SaitsEmbedding extends Model {
    final Linear embeddingLayer;
    final Dropout dropout;
    @Buffer Tensor positionTable;

    SaitsEmbedding(int dIn, int dOut, int nMaxSteps, double dropout) {
      this.embeddingLayer = new Linear(dIn, dOut);
      this.dropout = new Dropout(dropout);
      double[] table = new double[nMaxSteps * dOut];
      for (int pos = 0; pos < nMaxSteps; pos++) {
        for (int j = 0; j < dOut; j++) {
          double angle = pos / Math.pow(10000, 2.0 * (j / 2) / dOut);
          table[pos * dOut + j] = j % 2 == 0 ? Math.sin(angle) : Math.cos(angle);
        }
      }
      this.positionTable = Tensor.of(table, nMaxSteps, dOut).unsqueeze(0);
    }

    Tensor forward(Tensor x, Tensor missingMask) {
      Tensor input = Tensor.cat(List.of(x, missingMask), 2);
      Tensor embedded = embeddingLayer.forward(input); // same bug
      embedded = embedded.add(positionTable.slice(1, 0, x.size(1)));
      return dropout.forward(embedded);
    }
  }

  static final class AttentionLayer extends Model {
    final Linear wQ;
    final Linear wK;
    final Linear wV;
    final Linear fc;
    final LayerNorm norm;
    final Linear ffn1;
    final Linear ffn2;
    final LayerNorm ffnNorm;

    AttentionLayer(int dModel, int dFfn) {
      this.wQ = new Linear(dModel, dModel, false, Device.cpu());
      this.wK = new Linear(dModel, dModel, false, Device.cpu());
      this.wV = new Linear(dModel, dModel, false, Device.cpu());
      this.fc = new Linear(dModel, dModel);
      this.norm = new LayerNorm(dModel);
      this.ffn1 = new Linear(dModel, dFfn);
      this.ffn2 = new Linear(dFfn, dModel);
      this.ffnNorm = new LayerNorm(dModel);
    }

    Tensor forward(Tensor query, Tensor keyValue) {
      Tensor q = wQ.forward(query);
      Tensor k = wK.forward(keyValue);
      Tensor v = wV.forward(keyValue);
      Tensor attn = q.matmul(k.transpose(1, 2)).div(Math.sqrt(q.size(2))).softmax(-1);
      Tensor out = norm.forward(query.add(fc.forward(attn.matmul(v))));
      return ffnNorm.forward(out.add(ffn2.forward(ffn1.forward(out).relu())));
    }
  }

  static final class TransformerCore extends Model {
    final int nPredSteps;
    final int nPredFeatures;
    final SaitsEmbedding encoderSaitsEmbedding;
    final SaitsEmbedding decoderSaitsEmbedding;
    final AttentionLayer encoder;
    final AttentionLayer decoderSelf;
    final AttentionLayer decoderCross;
    final Linear outputProjection;

    TransformerCore(int nSteps, int nFeatures, int nPredSteps, int nPredFeatures, int dModel, int dFfn,
        double dropout) {
      this.nPredSteps = nPredSteps;
      this.nPredFeatures = nPredFeatures;
      this.encoderSaitsEmbedding = new SaitsEmbedding(nFeatures * 2, dModel, nSteps, dropout);
      this.decoderSaitsEmbedding = new SaitsEmbedding(nFeatures * 2, dModel, nPredSteps, dropout);
      this.encoder = new AttentionLayer(dModel, dFfn);
      this.decoderSelf = new AttentionLayer(dModel, dFfn);
      this.decoderCross = new AttentionLayer(dModel, dFfn);
      this.outputProjection = new Linear(dModel, nPredFeatures);
    }

    Map<String, Tensor> forward(Map<String, Tensor> inputs) {
      Tensor x = inputs.get("X");
      Tensor missingMask = inputs.get("missing_mask");
      Tensor xPred;
      Tensor xPredMissingMask;
      if (isTraining()) {
        xPred = inputs.get("X_pred");
        xPredMissingMask = inputs.get("X_pred_missing_mask");
      } else {
        long batchSize = x.size(0);
        xPred = Tensor.zeros(batchSize, nPredSteps, nPredFeatures); // bug: across-methods
        xPredMissingMask = Tensor.ones(batchSize, nPredSteps, nPredFeatures); // bug: across-methods
      }

      // apply the SAITS embedding strategy, concatenate X and missing mask for input
      Tensor inputX = encoderSaitsEmbedding.forward(x, missingMask);
      Tensor encOutput = encoder.forward(inputX, inputX);
      Tensor inputXPred = decoderSaitsEmbedding.forward(xPred, xPredMissingMask);
      Tensor decOutput = decoderCross.forward(decoderSelf.forward(inputXPred, inputXPred), encOutput);
      Tensor forecastingResult = outputProjection.forward(decOutput);

      Map<String, Tensor> results = new HashMap<>();
      results.put("forecasting_data", forecastingResult);
      if (isTraining()) {
        results.put("loss", calcMse(forecastingResult, xPred, xPredMissingMask));
      }
      return results;
    }
  }

  /** The forecaster wrapper: assembles the batches, trains and validates. */
  static final class TransformerForecaster {
    final Device device;
    final int epochs;
    final TransformerCore model;
    final Adam optimizer;
    double bestLoss = Double.POSITIVE_INFINITY;

    TransformerForecaster(int nSteps, int nFeatures, int nPredSteps, int epochs, Device device) {
      this.device = device;
      this.epochs = epochs;
      this.model = new TransformerCore(nSteps, nFeatures, nPredSteps, nFeatures, 16, 32, 0.1);
      this.model.toDevice(device);
      this.optimizer = new Adam(model.parameters(), 1e-3);
    }

    Map<String, Tensor> assembleInputForTraining(Batch data) {
      Map<String, Tensor> inputs = new HashMap<>();
      inputs.put("X", data.tensor(0).to(device));
      inputs.put("missing_mask", data.tensor(1).to(device));
      inputs.put("X_pred", data.tensor(2).to(device));
      inputs.put("X_pred_missing_mask", data.tensor(3).to(device));
      return inputs;
    }

    Map<String, Tensor> assembleInputForValidating(Batch data) {
      return assembleInputForTraining(data);
    }

    void trainModel(DataLoader trainingLoader, DataLoader valLoader) {
      for (int epoch = 1; epoch <= epochs; epoch++) {
        model.train();
        List<Double> epochTrainLossCollector = new ArrayList<>();
        for (Batch data : trainingLoader) {
          Map<String, Tensor> inputs = assembleInputForTraining(data);
          optimizer.zeroGrad();
          Map<String, Tensor> results = model.forward(inputs);
          results.get("loss").sum().backward();
          optimizer.step();
          epochTrainLossCollector.add(results.get("loss").sum().item()); // costs time: HostSyncInLoop
        }
        double meanTrainLoss = epochTrainLossCollector.stream().mapToDouble(Double::doubleValue).average().orElse(0);

        model.eval();
        List<Double> valLossCollector = new ArrayList<>();
        try (Autograd.Scope ignored = Autograd.noGrad()) {
          for (Batch data : valLoader) {
            Map<String, Tensor> inputs = assembleInputForValidating(data);
            Map<String, Tensor> results = model.forward(inputs);
            double valLoss = calcMse(results.get("forecasting_data"), inputs.get("X_pred"),
                inputs.get("X_pred_missing_mask")).sum().detach().item(); // costs time: HostSyncInLoop
            valLossCollector.add(valLoss);
          }
        }
        double meanValLoss = valLossCollector.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        System.out.printf("Epoch %03d - training loss (MSE): %.4f, validation MSE: %.4f%n", epoch, meanTrainLoss,
            meanValLoss);
        if (meanValLoss < bestLoss) {
          bestLoss = meanValLoss;
        }
      }
    }

    void fit(TensorDataset trainSet, TensorDataset valSet) {
      DataLoader trainingLoader = DataLoader.builder(trainSet).batchSize(8).shuffle(0).build();
      DataLoader valLoader = DataLoader.builder(valSet).batchSize(8).build();
      trainModel(trainingLoader, valLoader);
    }
  }

  static TensorDataset makeSet(int n, int nSteps, int nPredSteps, int nFeatures) {
    Tensor series = Tensor.randn(Shape.of(n, nSteps + nPredSteps, nFeatures));
    Tensor mask = Tensor.rand(Shape.of(n, nSteps + nPredSteps, nFeatures)).gt(0.1).to(dev.ondevice.DType.FLOAT32);
    Tensor x = series.slice(1, 0, nSteps).mul(mask.slice(1, 0, nSteps));
    return new TensorDataset(x, mask.slice(1, 0, nSteps).contiguous(),
        series.slice(1, nSteps, nSteps + nPredSteps).contiguous(),
        mask.slice(1, nSteps, nSteps + nPredSteps).contiguous());
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    int nSteps = 12;
    int nPredSteps = 4;
    int nFeatures = 3;
    TransformerForecaster forecaster = new TransformerForecaster(nSteps, nFeatures, nPredSteps, 2, device);
    forecaster.fit(makeSet(32, nSteps, nPredSteps, nFeatures), makeSet(16, nSteps, nPredSteps, nFeatures));
  }
}
