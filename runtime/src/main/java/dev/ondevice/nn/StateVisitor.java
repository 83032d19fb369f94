package dev.ondevice.nn;

import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

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

  /**
   * The submodules of a map field, each handed to {@link #submodule} as {@code prefix + key}: in
   * the map's own order where it has one (a {@link LinkedHashMap}'s insertion order, as PyTorch's
   * {@code ModuleDict}, or a {@link SortedMap}'s), else in key order, so that the names and the
   * order of the parameters, which an optimizer's saved state relies on, are the same in every run.
   */
  default void submodules(String prefix, Map<String, ? extends Model> models) {
    Map<String, ? extends Model> ordered =
        models instanceof LinkedHashMap || models instanceof SortedMap
            ? models
            : new TreeMap<>(models);
    for (Map.Entry<String, ? extends Model> e : ordered.entrySet()) {
      submodule(prefix + e.getKey(), e.getValue());
    }
  }
}
