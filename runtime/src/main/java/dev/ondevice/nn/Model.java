package dev.ondevice.nn;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.InPlace;
import dev.ondevice.annotations.ReturnsDevice;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The base class of models (PyTorch's {@code nn.Module}; the name avoids {@code java.lang.Module}).
 * A model's fields are its state: {@link Parameter} fields, {@code @Buffer} tensor fields,
 * submodule fields, and lists and maps of submodules. The ondevice annotation processor generates,
 * at compile time, the code that walks them; every method here uses it.
 *
 * <pre>{@code
 * class Net extends Model {
 *   final Linear fc1 = new Linear(784, 128);
 *   final Linear fc2 = new Linear(128, 10);
 *   Tensor forward(Tensor x) { return fc2.forward(fc1.forward(x).relu()); }
 * }
 * Net net = new Net();
 * net.toDevice(device);      // in place: models move, tensors don't
 * }</pre>
 *
 * <p>A model class compiled without the processor fails on its first use here with an exception
 * that says how to configure it; there is no reflective fallback.
 */
public abstract class Model {
  private boolean training = true;

  /**
   * Moves every parameter and buffer of this model and its submodules to {@code device}, in place.
   * Parameters keep their identity, so an optimizer built before the move stays valid; buffers are
   * replaced by moved tensors; {@code @OnDevice("cpu")} fields stay where they are.
   */
  @InPlace
  public void toDevice(Device device) {
    Device target = device.resolved();
    code()
        .visit(
            this,
            "",
            new StateVisitor() {
              @Override
              public void parameter(String name, Parameter p) {
                if (p != null) {
                  p.moveTo(target);
                }
              }

              @Override
              public Tensor buffer(
                  String name, Tensor value, boolean persistent, boolean pinnedToCpu) {
                return value == null || pinnedToCpu ? value : value.to(target);
              }

              @Override
              public void submodule(String name, Model m) {
                if (m != null) {
                  m.toDevice(target);
                }
              }
            });
  }

  /**
   * The model's structure, as PyTorch prints a module: its class with {@link #describe()}, then
   * each direct submodule under its field name, indented, and the elements of a list or map field
   * grouped under the field, as PyTorch prints a {@code ModuleList} or {@code ModuleDict}:
   *
   * <pre>
   * Net(
   *   (fc1): Linear(in_features=784, out_features=128, bias=true)
   *   (heads): List(
   *     (0): Linear(in_features=128, out_features=10, bias=true)
   *   )
   * )
   * </pre>
   */
  @Override
  public String toString() {
    String name =
        getClass().getSimpleName().isEmpty() ? getClass().getName() : getClass().getSimpleName();
    Map<String, Model> children;
    try {
      children = printedChildren();
    } catch (IllegalStateException e) {
      boolean local = getClass().isAnonymousClass() || getClass().isLocalClass();
      return name
          + "(<no generated code: "
          + (local
              ? "a local or anonymous model class"
              : "compiled without the ondevice annotation processor")
          + ">)";
    }
    String settings = describe();
    if (children.isEmpty()) {
      return name + "(" + settings + ")";
    }
    StringBuilder sb = new StringBuilder(name).append('(');
    if (!settings.isEmpty()) {
      sb.append("\n  ").append(settings);
    }
    List<Map.Entry<String, Model>> entries = new ArrayList<>(children.entrySet());
    for (int i = 0; i < entries.size(); ) {
      String key = entries.get(i).getKey();
      int dot = key.indexOf('.');
      if (dot < 0) {
        appendChild(sb, "  ", key, entries.get(i).getValue());
        i++;
        continue;
      }
      // The elements of a list or map field, grouped under the field as PyTorch prints a
      // ModuleList.
      String field = key.substring(0, dot + 1);
      int end = i;
      boolean indexed = true;
      while (end < entries.size() && entries.get(end).getKey().startsWith(field)) {
        indexed &= isIndex(entries.get(end).getKey().substring(field.length()));
        end++;
      }
      sb.append("\n  (").append(key, 0, dot).append("): ").append(indexed ? "List(" : "Map(");
      for (Map.Entry<String, Model> element : entries.subList(i, end)) {
        appendChild(sb, "    ", element.getKey().substring(field.length()), element.getValue());
      }
      sb.append("\n  )");
      i = end;
    }
    return sb.append("\n)").toString();
  }

  private static void appendChild(StringBuilder sb, String indent, String name, Model child) {
    sb.append('\n')
        .append(indent)
        .append('(')
        .append(name)
        .append("): ")
        .append(String.valueOf(child).replace("\n", "\n" + indent));
  }

  private static boolean isIndex(String s) {
    return !s.isEmpty() && s.chars().allMatch(Character::isDigit);
  }

  /**
   * The submodules {@link #toString()} prints, by name: {@link #namedChildren()}, which {@link
   * Sequential} and {@link LayerList} name {@code 0}, {@code 1}, ... as PyTorch prints them.
   */
  Map<String, Model> printedChildren() {
    return namedChildren();
  }

  /** {@code children} with {@code prefix} taken off the names that start with it. */
  static Map<String, Model> withoutPrefix(Map<String, Model> children, String prefix) {
    Map<String, Model> out = new LinkedHashMap<>();
    children.forEach(
        (name, m) -> out.put(name.startsWith(prefix) ? name.substring(prefix.length()) : name, m));
    return out;
  }

  /**
   * The settings {@link #toString()} shows beside the class name, as PyTorch's {@code extra_repr}:
   * {@code in_features=784, out_features=128, bias=true} for a {@link Linear}; empty by default.
   */
  protected String describe() {
    return "";
  }

  /** The parameters of this model and its submodules, in declaration order, each once. */
  public List<Parameter> parameters() {
    return new ArrayList<>(namedParameters().values());
  }

  /** The parameters by dotted name ({@code fc1.weight}), in declaration order, each once. */
  public Map<String, Parameter> namedParameters() {
    Map<String, Parameter> out = new LinkedHashMap<>();
    Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    walk(
        "",
        new Collector() {
          @Override
          public void parameter(String name, Parameter p) {
            if (p != null && seen.add(p)) {
              out.put(name, p);
            }
          }
        });
    return out;
  }

  /** The buffers by dotted name, persistent or not, in declaration order. */
  public Map<String, Tensor> namedBuffers() {
    Map<String, Tensor> out = new LinkedHashMap<>();
    walk(
        "",
        new Collector() {
          @Override
          public Tensor buffer(String name, Tensor value, boolean persistent, boolean pinnedToCpu) {
            if (value != null) {
              out.put(name, value);
            }
            return value;
          }
        });
    return out;
  }

  /** This model's direct submodules by field name (list and map elements as {@code layers.0}). */
  public Map<String, Model> namedChildren() {
    Map<String, Model> out = new LinkedHashMap<>();
    code()
        .visit(
            this,
            "",
            new Collector() {
              @Override
              public void submodule(String name, Model m) {
                if (m != null) {
                  out.put(name, m);
                }
              }
            });
    return out;
  }

  /**
   * This model and all its submodules, depth first in declaration order, each once (a submodule
   * shared by two fields is listed at its first place): PyTorch's {@code modules()}.
   */
  public List<Model> modules() {
    List<Model> out = new ArrayList<>();
    collectModules(this, out, Collections.newSetFromMap(new IdentityHashMap<>()));
    return out;
  }

  private static void collectModules(Model m, List<Model> out, Set<Model> seen) {
    if (seen.add(m)) {
      out.add(m);
      for (Model child : m.namedChildren().values()) {
        collectModules(child, out, seen);
      }
    }
  }

  /**
   * Calls {@code fn} on every submodule and then on this model, as PyTorch's {@code apply(fn)}: the
   * place for a custom initialisation ({@code net.apply(m -> { if (m instanceof Linear l) ... })}).
   */
  public void apply(Consumer<? super Model> fn) {
    apply(this, fn, Collections.newSetFromMap(new IdentityHashMap<>()));
  }

  private static void apply(Model m, Consumer<? super Model> fn, Set<Model> seen) {
    if (seen.add(m)) {
      for (Model child : m.namedChildren().values()) {
        apply(child, fn, seen);
      }
      fn.accept(m);
    }
  }

  /**
   * The state dict: parameters and persistent buffers by dotted name, in declaration order,
   * detached (they share memory with the model). As in PyTorch, a parameter shared by two
   * submodules (tied weights) is listed under each of its names, so that a state dict saved by
   * PyTorch loads strictly; {@link #namedParameters()} lists it once.
   */
  public Map<String, Tensor> stateDict() {
    Map<String, Tensor> out = new LinkedHashMap<>();
    walk(
        "",
        new Collector() {
          @Override
          public void parameter(String name, Parameter p) {
            if (p != null) {
              out.put(name, p.detach());
            }
          }

          @Override
          public Tensor buffer(String name, Tensor value, boolean persistent, boolean pinnedToCpu) {
            if (value != null && persistent) {
              out.put(name, value.detach());
            }
            return value;
          }
        });
    return out;
  }

  /**
   * Copies {@code state} into this model's parameters and persistent buffers, in place: each keeps
   * its device and dtype, whatever the device of the loaded tensor.
   *
   * @param strict whether every key must match: with {@code true}, missing and unexpected keys are
   *     an error; shape mismatches always are
   * @return the keys that did not match (empty when strict)
   * @throws StateDictException naming missing, unexpected and mis-shaped keys; nothing is copied
   *     then
   */
  public LoadResult loadStateDict(Map<String, Tensor> state, boolean strict) {
    return StateLoader.load(this, state, strict);
  }

  /**
   * Puts this model and its submodules in training mode (Dropout drops, BatchNorm uses batch
   * statistics).
   */
  public void train() {
    train(true);
  }

  /** Puts this model and its submodules in evaluation mode. */
  public void eval() {
    train(false);
  }

  /** Sets training mode on this model and, recursively, its submodules. */
  public void train(boolean mode) {
    training = mode;
    code()
        .visit(
            this,
            "",
            new Collector() {
              @Override
              public void submodule(String name, Model m) {
                if (m != null) {
                  m.train(mode);
                }
              }
            });
  }

  /** Whether this model is in training mode (the default). */
  public boolean isTraining() {
    return training;
  }

  /**
   * Sets every parameter's gradient to null with {@link Parameter#clearGrad}: the memory of
   * gradients that backward made goes back to the allocator at once, and a gradient tensor kept
   * from before throws on use (clone it to keep it).
   */
  public void zeroGrad() {
    for (Parameter p : parameters()) {
      p.clearGrad();
    }
  }

  /** The device of the first parameter or buffer; the CPU for a model without state. */
  @ReturnsDevice(ReturnsDevice.Source.OF_RECEIVER)
  public Device device() {
    for (Parameter p : parameters()) {
      return p.device();
    }
    for (Tensor b : namedBuffers().values()) {
      return b.device();
    }
    return Device.cpu();
  }

  /** Visits the whole tree of state with dotted names. */
  void walk(String prefix, StateVisitor visitor) {
    code()
        .visit(
            this,
            prefix,
            new StateVisitor() {
              @Override
              public void parameter(String name, Parameter p) {
                visitor.parameter(name, p);
              }

              @Override
              public Tensor buffer(
                  String name, Tensor value, boolean persistent, boolean pinnedToCpu) {
                return visitor.buffer(name, value, persistent, pinnedToCpu);
              }

              @Override
              public void submodule(String name, Model m) {
                visitor.submodule(name, m);
                if (m != null) {
                  m.walk(name + ".", visitor);
                }
              }
            });
  }

  @SuppressWarnings("unchecked")
  private ModelCode<Model> code() {
    return (ModelCode<Model>) ModelCodes.of(getClass());
  }

  /** A visitor that ignores everything, to override selectively. */
  private static class Collector implements StateVisitor {
    @Override
    public void parameter(String name, Parameter p) {}

    @Override
    public Tensor buffer(String name, Tensor value, boolean persistent, boolean pinnedToCpu) {
      return value;
    }

    @Override
    public void submodule(String name, Model m) {}
  }
}
