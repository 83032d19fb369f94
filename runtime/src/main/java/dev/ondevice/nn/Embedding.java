package dev.ondevice.nn;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.util.Arrays;

/**
 * A lookup table of {@code numEmbeddings} vectors of size {@code embeddingDim}: PyTorch's {@code
 * nn.Embedding} (without padding index, max norm or sparse gradients). The weight is {@code
 * [numEmbeddings, embeddingDim]}, initialised standard normal as in PyTorch.
 */
public class Embedding extends Layer {
  final Parameter weight;

  /** A table created on the CPU. */
  public Embedding(int numEmbeddings, int embeddingDim) {
    this(numEmbeddings, embeddingDim, Device.cpu());
  }

  /**
   * A table created directly on {@code device}.
   *
   * @throws IllegalArgumentException if a size is not positive
   */
  public Embedding(int numEmbeddings, int embeddingDim, Device device) {
    if (numEmbeddings <= 0 || embeddingDim <= 0) {
      throw new IllegalArgumentException(
          "Embedding: sizes must be positive, got numEmbeddings="
              + numEmbeddings
              + ", embeddingDim="
              + embeddingDim);
    }
    this.weight = new Parameter(Init.normal(Shape.of(numEmbeddings, embeddingDim), device));
  }

  /** The table, shape {@code [numEmbeddings, embeddingDim]}. */
  public Parameter weight() {
    return weight;
  }

  /**
   * The rows of the table at {@code indices}: int64 of any shape, on the table's device; the result
   * has the shape of {@code indices} plus {@code embeddingDim}. Repeated indices accumulate their
   * gradients.
   *
   * @throws IllegalArgumentException if the indices are not int64
   * @throws IndexOutOfBoundsException for an index outside the table (from indexSelect)
   */
  @Override
  public Tensor forward(Tensor indices) {
    if (indices.dtype() != DType.INT64) {
      throw new IllegalArgumentException(
          "Embedding: indices must be int64, got "
              + indices.dtype()
              + " (shape "
              + indices.shape()
              + ")");
    }
    long[] shape = Arrays.copyOf(indices.shape().toArray(), indices.dim() + 1);
    shape[indices.dim()] = weight.size(1);
    return weight.indexSelect(0, indices.reshape(-1)).reshape(shape);
  }

  @Override
  protected String describe() {
    return weight.shape().get(0) + ", " + weight.shape().get(1);
  }
}
