package dev.ondevice.optim;

import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The strict check of an optimizer's saved state tensors against its parameters: names, shapes and
 * dtypes, all reported at once (the lists capped, so that a state of a hundred thousand tensors
 * does not make a message of millions of characters).
 */
final class StateTensors {
  /** How many names of each kind a message lists before it says how many more there are. */
  static final int LISTED = 10;

  private StateTensors() {}

  /**
   * The state tensors by parameter, each copied onto its parameter's device.
   *
   * @param optimizer the optimizer's name, for messages
   * @param steps each parameter's saved step count: 0 means no state, more means exactly {@code
   *     names}
   * @param names the state names of a parameter that has been updated
   * @throws IllegalArgumentException listing the missing and unexpected names and the tensors of
   *     the wrong shape or dtype
   */
  static List<Map<String, Tensor>> check(
      String optimizer,
      List<Parameter> parameters,
      long[] steps,
      Set<String> names,
      Map<String, Tensor> saved) {
    List<String> missing = new ArrayList<>();
    for (int i = 0; i < parameters.size(); i++) {
      if (steps[i] > 0) {
        for (String n : new TreeSet<>(names)) {
          if (!saved.containsKey(key(i, n))) {
            missing.add(key(i, n));
          }
        }
      }
    }
    List<String> unexpected = new ArrayList<>();
    List<String> mismatched = new ArrayList<>();
    List<Map<String, Tensor>> loaded = new ArrayList<>();
    for (int i = 0; i < parameters.size(); i++) {
      loaded.add(new LinkedHashMap<>());
    }
    for (Map.Entry<String, Tensor> e : saved.entrySet()) {
      String[] parts = e.getKey().split("\\.", 3);
      int index = parts.length == 3 && parts[0].equals("state") ? parseIndex(parts[1]) : -1;
      if (index < 0
          || index >= parameters.size()
          || steps[index] == 0
          || !names.contains(parts[2])
          || !e.getKey().equals(key(index, parts[2]))) {
        unexpected.add(e.getKey());
        continue;
      }
      Parameter p = parameters.get(index);
      Tensor value = e.getValue();
      if (!value.shape().equals(p.shape()) || value.dtype() != p.dtype()) {
        mismatched.add(
            e.getKey()
                + ": "
                + value.dtype()
                + " "
                + value.shape()
                + ", but parameter "
                + index
                + " is "
                + p.dtype()
                + " "
                + p.shape());
        continue;
      }
      // One copy onto the parameter's device; a clone when the tensor is already there.
      Tensor detached = value.detach();
      Tensor moved = detached.to(p.device());
      loaded.get(index).put(parts[2], moved == detached ? detached.clone() : moved);
    }
    if (!missing.isEmpty() || !unexpected.isEmpty() || !mismatched.isEmpty()) {
      throw new IllegalArgumentException(
          message(optimizer, names, missing, unexpected, mismatched));
    }
    return loaded;
  }

  private static String message(
      String optimizer,
      Set<String> names,
      List<String> missing,
      List<String> unexpected,
      List<String> mismatched) {
    StringBuilder sb =
        new StringBuilder(
            "loadStateDict: the saved state does not fit this "
                + optimizer
                + " (each"
                + " updated parameter has "
                + (names.isEmpty() ? "no state tensors" : "state " + new TreeSet<>(names))
                + " under the saved hyper-parameters):");
    append(sb, "missing state tensor(s)", missing);
    append(sb, "unexpected state tensor(s)", unexpected);
    append(sb, "state tensor(s) whose dtype or shape is not their parameter's", mismatched);
    return sb.append("\n\tsave the state from the same optimizer, hyper-parameters and model")
        .toString();
  }

  /** Appends {@code items} under {@code title}: the first {@value #LISTED}, then how many more. */
  static void append(StringBuilder sb, String title, List<String> items) {
    if (items.isEmpty()) {
      return;
    }
    sb.append("\n\t").append(items.size()).append(' ').append(title).append(": ");
    sb.append(String.join(", ", items.subList(0, Math.min(LISTED, items.size()))));
    if (items.size() > LISTED) {
      sb.append(", ... (").append(items.size() - LISTED).append(" more)");
    }
  }

  private static String key(int index, String name) {
    return "state." + index + "." + name;
  }

  private static int parseIndex(String s) {
    try {
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
