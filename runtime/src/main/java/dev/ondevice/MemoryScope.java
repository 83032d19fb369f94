package dev.ondevice;

import dev.ondevice.internal.backend.Storage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Frees, when closed, the memory of the tensors that recorded ops computed into memory of their own
 * inside it on this thread (the forward pass of a training step: activations, logits, the loss),
 * except those passed to {@link #keep}. As DJL's {@code NDManager}, it makes the release of a
 * step's memory deterministic instead of waiting for the garbage collector:
 *
 * <pre>{@code
 * for (Batch batch : loader) {
 *   try (MemoryScope step = MemoryScope.open()) {
 *     Tensor loss = criterion.forward(model.forward(batch.input()), batch.target());
 *     optimizer.zeroGrad();
 *     loss.backward();
 *     optimizer.step();
 *     total = total.add(step.keep(loss).detach());
 *   }
 * }
 * }</pre>
 *
 * <p>What it never frees: views (a recorded op whose result shares an input's memory, such as a
 * parameter's transpose), tensors computed with gradient recording off (optimizer state, running
 * statistics, evaluation), the gradients backward gives the leaves, and the results of ops that
 * recorded nothing. A tensor it freed throws on use, saying so; keep it with {@link #keep}. It
 * holds what it will free until it closes: open one around a step, not around an epoch. Scopes
 * nest: a tensor kept by an inner scope belongs to the outer one.
 */
public final class MemoryScope implements AutoCloseable {
  private static final ThreadLocal<MemoryScope> CURRENT = new ThreadLocal<>();
  private static final String FREED_BY =
      "when the MemoryScope it was computed in closed; pass it to"
          + " MemoryScope.keep to use it after the scope";

  private final MemoryScope outer;
  private final List<Storage> computed = new ArrayList<>();
  private final Set<Storage> kept = Collections.newSetFromMap(new IdentityHashMap<>());
  private boolean closed;

  private MemoryScope(MemoryScope outer) {
    this.outer = outer;
  }

  /** Opens a scope on this thread, inside the one open already, if any. */
  public static MemoryScope open() {
    MemoryScope scope = new MemoryScope(CURRENT.get());
    CURRENT.set(scope);
    return scope;
  }

  /**
   * Notes that a recorded op computed {@code out} from {@code inputs}, for the innermost scope open
   * on this thread, unless it is a view of an input.
   */
  static void computed(Tensor out, Tensor[] inputs) {
    MemoryScope scope = CURRENT.get();
    if (scope == null) {
      return;
    }
    Storage s = out.data.storage();
    for (Tensor in : inputs) {
      if (in != null && in.data.storage() == s) {
        return;
      }
    }
    scope.computed.add(s);
  }

  /**
   * Keeps {@code t}'s memory (and so every view of it) past this scope, for the scope around it to
   * free, or for good; returns {@code t}.
   */
  public <T extends Tensor> T keep(T t) {
    Storage s = t.data.storage();
    kept.add(s);
    if (outer != null) {
      outer.computed.add(s);
    }
    return t;
  }

  /**
   * Frees what recorded ops computed inside this scope, except what was kept; closing twice does
   * nothing.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    CURRENT.set(outer);
    for (Storage s : computed) {
      if (!kept.contains(s)) {
        s.free(FREED_BY);
      }
    }
  }
}
