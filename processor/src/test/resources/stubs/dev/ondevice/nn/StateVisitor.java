package dev.ondevice.nn;

import dev.ondevice.Parameter;
import dev.ondevice.Tensor;

/** Stub of the runtime's StateVisitor, with the real signatures. */
public interface StateVisitor {
  void parameter(String name, Parameter p);

  Tensor buffer(String name, Tensor value, boolean persistent, boolean pinnedToCpu);

  void submodule(String name, Model m);
}
