package dev.ondevice.nn;

import dev.ondevice.Parameter;
import dev.ondevice.Tensor;

/** Stub of the runtime's StateVisitor, with the real signatures. */
public interface StateVisitor {
  void parameter(String name, Parameter p);

  Tensor buffer(String name, Tensor value, boolean persistent, boolean pinnedToCpu);

  void submodule(String name, Model m);

  default void submodules(String prefix, java.util.Map<String, ? extends Model> models) {
    for (java.util.Map.Entry<String, ? extends Model> e : new java.util.TreeMap<>(models).entrySet()) {
      submodule(prefix + e.getKey(), e.getValue());
    }
  }
}
