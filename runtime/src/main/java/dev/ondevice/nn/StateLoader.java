package dev.ondevice.nn;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Loads a state dict into a model: validate every key first, then copy in place. */
final class StateLoader {
  private StateLoader() {}

  static LoadResult load(Model model, Map<String, Tensor> state, boolean strict) {
    Map<String, Tensor> expected = model.stateDict();
    Map<String, Tensor> nullBuffers = new LinkedHashMap<>();
    Device[] modelDevice = {null};
    model.walk(
        "",
        new StateVisitor() {
          @Override
          public void parameter(String name, Parameter p) {
            if (modelDevice[0] == null && p != null) {
              modelDevice[0] = p.device();
            }
          }

          @Override
          public Tensor buffer(String name, Tensor value, boolean persistent, boolean pinnedToCpu) {
            if (value == null && persistent) {
              nullBuffers.put(name, null);
            }
            if (modelDevice[0] == null && value != null && !pinnedToCpu) {
              modelDevice[0] = value.device();
            }
            return value;
          }

          @Override
          public void submodule(String name, Model m) {}
        });
    List<String> missing = new ArrayList<>();
    List<String> mismatched = new ArrayList<>();
    List<String> details = new ArrayList<>();
    for (Map.Entry<String, Tensor> e : expected.entrySet()) {
      Tensor loaded = state.get(e.getKey());
      if (loaded == null) {
        missing.add(e.getKey());
      } else if (!loaded.shape().equals(e.getValue().shape())) {
        mismatched.add(e.getKey());
        details.add(
            e.getKey()
                + ": the state has shape "
                + loaded.shape()
                + ", the model "
                + e.getValue().shape());
      }
    }
    // A buffer still unset (null) is not in stateDict(): its key is optional, loaded where present
    // (a checkpoint saved once the buffer was set), and not missing where absent (the model's own
    // state dict, saved before).
    List<String> unexpected = new ArrayList<>();
    for (String key : state.keySet()) {
      if (!expected.containsKey(key) && !nullBuffers.containsKey(key)) {
        unexpected.add(key);
      }
    }
    if (!mismatched.isEmpty() || (strict && (!missing.isEmpty() || !unexpected.isEmpty()))) {
      // As PyTorch's load_state_dict(strict=False): a size mismatch is still an error, the keys it
      // skips are not.
      throw new StateDictException(
          model.getClass().getSimpleName(),
          strict ? missing : List.of(),
          strict ? unexpected : List.of(),
          mismatched,
          details);
    }
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      model.walk(
          "",
          new StateVisitor() {
            @Override
            public void parameter(String name, Parameter p) {
              Tensor loaded = state.get(name);
              if (p != null && loaded != null) {
                p.assign(loaded);
              }
            }

            @Override
            public Tensor buffer(
                String name, Tensor value, boolean persistent, boolean pinnedToCpu) {
              Tensor loaded = persistent ? state.get(name) : null;
              if (loaded == null) {
                return value;
              }
              if (value == null) {
                // A buffer still unset takes the loaded values where the model keeps its state.
                Device target =
                    pinnedToCpu || modelDevice[0] == null ? Device.cpu() : modelDevice[0];
                Tensor placed = loaded.to(target);
                return placed == loaded ? loaded.clone() : placed;
              }
              value.copyFrom(loaded);
              return value;
            }

            @Override
            public void submodule(String name, Model m) {}
          });
    }
    return new LoadResult(missing, unexpected);
  }
}
