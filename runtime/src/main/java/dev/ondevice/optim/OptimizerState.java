package dev.ondevice.optim;

import dev.ondevice.Tensor;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An optimizer's state, ready to save: its tensors (momentum buffers, moment estimates) by name, as
 * {@code state.<parameter index>.<name>}, and its metadata (the optimizer's type, hyper-parameters
 * and step counts) as strings.
 */
public final class OptimizerState {
  private final Map<String, Tensor> tensors;
  private final Map<String, String> metadata;

  /** State from its parts (copied). */
  public OptimizerState(Map<String, Tensor> tensors, Map<String, String> metadata) {
    this.tensors = Collections.unmodifiableMap(new LinkedHashMap<>(tensors));
    this.metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
  }

  /** The state tensors by name, in a stable order. */
  public Map<String, Tensor> tensors() {
    return tensors;
  }

  /** Type, hyper-parameters and step counts, by name. */
  public Map<String, String> metadata() {
    return metadata;
  }
}
