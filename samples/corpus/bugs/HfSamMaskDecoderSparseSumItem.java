package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.BceWithLogitsLoss;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;

/**
 * transformers' SAM: {@code SamModel.forward} embeds the image, encodes the prompts with {@code
 * SamPromptEncoder} (sparse embeddings for points and boxes, a dense {@code no_mask_embed}) and
 * predicts masks with {@code SamMaskDecoder}, which prepends the IoU and mask tokens to the sparse
 * prompt embeddings, attends to the image embeddings and builds the masks with per-token
 * hypernetwork MLPs. Fine-tuning (as in the SAM fine-tuning notebooks) freezes the vision and prompt
 * encoders and trains the mask decoder on box prompts.
 *
 * <p>Source: https://github.com/huggingface/transformers/pull/39386 ("fix two lines that were
 * causing unnecessary cuda sync")
 *
 * <p>Bug: {@code SamMaskDecoder.forward} tests {@code if sparse_prompt_embeddings.sum().item() !=
 * 0:} to decide whether to concatenate the prompt tokens: a host synchronisation in every forward,
 * so in every training step. The fix tests {@code sparse_prompt_embeddings is not None} (the prompt
 * encoder no longer returns zeros when there is no prompt).
 *
 * <p>Ported: the vision encoder is one patch convolution; the two-way transformer is one
 * token-to-image cross-attention; the mask upscaling convolutions are left out (masks are
 * predicted at the embedding resolution); random box prompts and masks.
 *
 * <p>Outcome: completes (one host sync per forward)
 */
public final class HfSamMaskDecoderSparseSumItem {
  private HfSamMaskDecoderSparseSumItem() {}

  static final int HIDDEN = 16;
  static final int EMBED_SIZE = 4;

  /** Random Fourier features of normalized coordinates. */
  static final class SamPositionalEmbedding extends Model {
    @Buffer Tensor positionalEmbedding = Tensor.randn(2, HIDDEN / 2);

    Tensor forward(Tensor inputCoords) {
      Tensor coordinates = inputCoords.mul(2.0).sub(1.0);
      coordinates = coordinates.matmul(positionalEmbedding).mul(2 * Math.PI);
      return Tensor.cat(List.of(coordinates.sin(), coordinates.cos()), -1);
    }
  }

  static final class SamPromptEncoder extends Model {
    final SamPositionalEmbedding sharedEmbedding;
    final Embedding pointEmbed = new Embedding(4, HIDDEN);
    final Embedding noMaskEmbed = new Embedding(1, HIDDEN);
    final int inputImageSize;

    SamPromptEncoder(SamPositionalEmbedding sharedEmbedding, int inputImageSize) {
      this.sharedEmbedding = sharedEmbedding;
      this.inputImageSize = inputImageSize;
    }

    Tensor embedBoxes(Tensor boxes) {
      boxes = boxes.add(0.5); // shift to center of pixel
      long batchSize = boxes.size(0);
      long nbBoxes = boxes.size(1);
      Tensor coords = boxes.reshape(batchSize, nbBoxes, 2, 2).div(inputImageSize);
      Tensor cornerEmbedding = sharedEmbedding.forward(coords);
      Tensor corners = Tensor.cat(List.of(
          cornerEmbedding.select(2, 0).add(pointEmbed.weight().select(0, 2)).unsqueeze(2),
          cornerEmbedding.select(2, 1).add(pointEmbed.weight().select(0, 3)).unsqueeze(2)), 2);
      return corners;
    }

    Tensor[] forward(Tensor inputBoxes) {
      long batchSize = inputBoxes.size(0);
      Tensor sparseEmbeddings = embedBoxes(inputBoxes);
      Tensor denseEmbeddings = noMaskEmbed.weight().reshape(1, -1, 1, 1).expand(batchSize, HIDDEN, EMBED_SIZE,
          EMBED_SIZE);
      return new Tensor[] {sparseEmbeddings, denseEmbeddings};
    }
  }

  static final class SamFeedForward extends Model {
    final Linear projIn;
    final Linear hidden;
    final Linear projOut;

    SamFeedForward(int inputDim, int hiddenDim, int outputDim) {
      this.projIn = new Linear(inputDim, hiddenDim);
      this.hidden = new Linear(hiddenDim, hiddenDim);
      this.projOut = new Linear(hiddenDim, outputDim);
    }

    Tensor forward(Tensor x) {
      return projOut.forward(hidden.forward(projIn.forward(x).relu()).relu());
    }
  }

  static final class SamMaskDecoder extends Model {
    final int numMaskTokens = 4;
    final Embedding iouToken = new Embedding(1, HIDDEN);
    final Embedding maskTokens = new Embedding(numMaskTokens, HIDDEN);
    final Linear qProj = new Linear(HIDDEN, HIDDEN);
    final Linear kProj = new Linear(HIDDEN, HIDDEN);
    final Linear vProj = new Linear(HIDDEN, HIDDEN);
    final LayerNorm layerNorm = new LayerNorm(HIDDEN);
    final List<SamFeedForward> outputHypernetworksMlps = new ArrayList<>();
    final SamFeedForward iouPredictionHead = new SamFeedForward(HIDDEN, 32, numMaskTokens);

    SamMaskDecoder() {
      for (int i = 0; i < numMaskTokens; i++) {
        outputHypernetworksMlps.add(new SamFeedForward(HIDDEN, HIDDEN, HIDDEN));
      }
    }

    Tensor[] forward(Tensor imageEmbeddings, Tensor imagePositionalEmbeddings, Tensor sparsePromptEmbeddings,
        Tensor densePromptEmbeddings, boolean multimaskOutput) {
      long batchSize = imageEmbeddings.size(0);
      long height = imageEmbeddings.size(2);
      long width = imageEmbeddings.size(3);
      long pointBatchSize = sparsePromptEmbeddings.size(1);
      // Concatenate output tokens
      Tensor outputTokens = Tensor.cat(List.of(iouToken.weight(), maskTokens.weight()), 0);
      outputTokens = outputTokens.expand(batchSize, pointBatchSize, 1 + numMaskTokens, HIDDEN);

      Tensor tokens;
      if (sparsePromptEmbeddings.sum().item() != 0) { // bug: per-step
        tokens = Tensor.cat(List.of(outputTokens, sparsePromptEmbeddings), 2);
      } else {
        tokens = outputTokens;
      }

      // Expand per-image data in batch direction to be per-point
      imageEmbeddings = imageEmbeddings.add(densePromptEmbeddings);
      Tensor keys = imageEmbeddings.add(imagePositionalEmbeddings).flatten(2).transpose(1, 2).unsqueeze(1);
      Tensor values = imageEmbeddings.flatten(2).transpose(1, 2).unsqueeze(1);

      // token-to-image attention
      Tensor q = qProj.forward(tokens);
      Tensor k = kProj.forward(keys);
      Tensor attn = q.matmul(k.transpose(-2, -1)).div(Math.sqrt(HIDDEN)).softmax(-1);
      Tensor pointEmbedding = layerNorm.forward(tokens.add(attn.matmul(vProj.forward(values))));
      Tensor iouTokenOut = pointEmbedding.select(2, 0);
      Tensor maskTokensOut = pointEmbedding.slice(2, 1, 1 + numMaskTokens);

      List<Tensor> hyperInList = new ArrayList<>();
      for (int i = 0; i < numMaskTokens; i++) {
        hyperInList.add(outputHypernetworksMlps.get(i).forward(maskTokensOut.select(2, i)));
      }
      Tensor hyperIn = Tensor.stack(hyperInList, 2);
      Tensor upscaled = imageEmbeddings.reshape(batchSize, 1, HIDDEN, height * width);
      Tensor masks = hyperIn.matmul(upscaled).reshape(batchSize, pointBatchSize, numMaskTokens, height, width);
      Tensor iouPred = iouPredictionHead.forward(iouTokenOut);
      if (multimaskOutput) {
        return new Tensor[] {masks.slice(2, 1, numMaskTokens), iouPred.slice(2, 1, numMaskTokens)};
      }
      return new Tensor[] {masks.slice(2, 0, 1), iouPred.slice(2, 0, 1)};
    }
  }

  static final class SamModel extends Model {
    final SamPositionalEmbedding sharedImageEmbedding = new SamPositionalEmbedding();
    final Conv2d visionEncoder = new Conv2d(3, HIDDEN, 4, 4, 0, true);
    final SamPromptEncoder promptEncoder = new SamPromptEncoder(sharedImageEmbedding, 16);
    final SamMaskDecoder maskDecoder = new SamMaskDecoder();

    Tensor getImageWidePositionalEmbeddings() {
      Tensor grid = Tensor.ones(Shape.of(EMBED_SIZE, EMBED_SIZE), device());
      Tensor yEmbed = Tensor.arange(EMBED_SIZE, device()).add(0.5).div(EMBED_SIZE).unsqueeze(1).mul(grid);
      Tensor xEmbed = Tensor.arange(EMBED_SIZE, device()).add(0.5).div(EMBED_SIZE).unsqueeze(0).mul(grid);
      Tensor positional = sharedImageEmbedding.forward(Tensor.stack(List.of(xEmbed, yEmbed), -1));
      return positional.permute(2, 0, 1).unsqueeze(0);
    }

    Tensor[] forward(Tensor pixelValues, Tensor inputBoxes, boolean multimaskOutput) {
      Tensor imageEmbeddings = visionEncoder.forward(pixelValues);
      Tensor imagePositionalEmbeddings = getImageWidePositionalEmbeddings();
      Tensor[] prompts = promptEncoder.forward(inputBoxes);
      return maskDecoder.forward(imageEmbeddings, imagePositionalEmbeddings, prompts[0], prompts[1],
          multimaskOutput);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Tensor images = Tensor.randn(Shape.of(16, 3, 16, 16));
    Tensor boxes = Tensor.rand(Shape.of(16, 1, 4)).mul(15.0);
    Tensor groundTruthMasks = Tensor.rand(Shape.of(16, EMBED_SIZE, EMBED_SIZE)).gt(0.5).to(dev.ondevice.DType.FLOAT32);
    DataLoader trainDataloader = DataLoader.builder(new TensorDataset(images, boxes, groundTruthMasks))
        .batchSize(4).shuffle(0).build();

    SamModel model = new SamModel();
    model.toDevice(device);
    // make sure we only compute gradients for the mask decoder
    for (var entry : model.namedParameters().entrySet()) {
      if (entry.getKey().startsWith("visionEncoder") || entry.getKey().startsWith("promptEncoder")) {
        entry.getValue().requiresGrad(false);
      }
    }
    Adam optimizer = new Adam(model.maskDecoder.parameters(), 1e-4);
    BceWithLogitsLoss segLoss = new BceWithLogitsLoss();

    model.train();
    for (int epoch = 0; epoch < 2; epoch++) {
      List<Double> epochLosses = new ArrayList<>();
      for (Batch batch : trainDataloader) {
        Tensor pixelValues = batch.tensor(0).to(device);
        Tensor inputBoxes = batch.tensor(1).to(device);
        Tensor gt = batch.tensor(2).to(device);
        Tensor[] outputs = model.forward(pixelValues, inputBoxes, false);
        Tensor predictedMasks = outputs[0].squeeze(1).squeeze(1);
        Tensor loss = segLoss.forward(predictedMasks, gt);
        optimizer.zeroGrad();
        loss.backward();
        optimizer.step();
        epochLosses.add(loss.item()); // costs time: HostSyncInLoop
      }
      System.out.printf("EPOCH: %d, mean loss: %.4f%n", epoch,
          epochLosses.stream().mapToDouble(Double::doubleValue).average().orElse(0));
    }
  }
}
