package dev.ondevice.nn;

import dev.ondevice.Tensor;

/** A model with one tensor input and one tensor output: what {@link Sequential} chains. */
public abstract class Layer extends Model {
  /** Applies the layer to {@code input}. */
  public abstract Tensor forward(Tensor input);
}
