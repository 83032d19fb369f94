package dev.ondevice.nn;

import dev.ondevice.Parameter;
import dev.ondevice.Tensor;

/**
 * Receives the state of a model from its generated {@link ModelCode}: the walk behind moving,
 * listing, saving and loading a model.
 */
public interface StateVisitor {
  /** A parameter field ({@code p} may be null). */
  void parameter(String name, Parameter p);

  /**
   * A buffer field ({@code value} may be null); returns the tensor the field is to hold afterwards
   * (the same one to leave it).
   *
   * @param persistent whether it belongs in the state dict
   * @param pinnedToCpu whether it stays on the CPU when the model moves ({@code @OnDevice("cpu")})
   */
  Tensor buffer(String name, Tensor value, boolean persistent, boolean pinnedToCpu);

  /** A submodule field, or an element of a list or map of submodules ({@code m} may be null). */
  void submodule(String name, Model m);
}
