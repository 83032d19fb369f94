package dev.ondevice;

import dev.ondevice.internal.backend.Storage;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * The memory of one backward pass: frees each storage the pass made (logged by its {@link
 * AllocationLog}) as soon as no gradient waiting to be passed on views it, unless it became a
 * leaf's gradient. Memory the pass did not make (the caller's tensors, the forward pass's) is never
 * freed here. What it frees, nobody outside the pass ever saw: intermediate gradients and the
 * temporaries of backward functions.
 */
final class GradientMemory {
  static final String FREED_BY =
      "by backward() after its last use there (an intermediate gradient or a"
          + " temporary of a backward function, which nothing outside the backward pass holds)";

  private final AllocationLog log;
  private final Set<Storage> made = Collections.newSetFromMap(new IdentityHashMap<>());
  private final Set<Storage> leafGradients = Collections.newSetFromMap(new IdentityHashMap<>());
  private final IdentityHashMap<Storage, Integer> pending = new IdentityHashMap<>();
  private int seen;
  private int checked;

  GradientMemory(AllocationLog log) {
    this.log = log;
  }

  /** Whether this pass made {@code t}'s memory. */
  boolean made(Tensor t) {
    see();
    return made.contains(t.data.storage());
  }

  /** Counts {@code t} as a gradient waiting to be passed on. */
  void hold(Tensor t) {
    pending.merge(t.data.storage(), 1, Integer::sum);
  }

  /**
   * Ends one wait counted by {@link #hold}; the memory is freed at the next {@link #freeDead} if
   * dead.
   */
  void drop(Tensor t) {
    pending.computeIfPresent(t.data.storage(), (s, n) -> n == 1 ? null : n - 1);
  }

  /** Keeps {@code t}'s memory for good: it is a leaf's gradient now. */
  void keep(Tensor t) {
    leafGradients.add(t.data.storage());
  }

  /**
   * Where {@code t} is a leaf gradient this pass made, which a sum has just replaced: stops keeping
   * it and returns it, for {@link #freeDead}; else null.
   */
  Tensor replaced(Tensor t) {
    return made(t) && leafGradients.remove(t.data.storage()) ? t : null;
  }

  /**
   * Frees the memory of {@code dropped} and of everything made since the last call, where this pass
   * made it, no waiting gradient views it and it is no leaf's gradient.
   */
  void freeDead(Tensor... dropped) {
    see();
    for (Storage s : log.since(checked)) {
      freeIfDead(s);
    }
    checked = log.size();
    for (Tensor t : dropped) {
      if (t != null && made.contains(t.data.storage())) {
        freeIfDead(t.data.storage());
      }
    }
  }

  private void freeIfDead(Storage s) {
    if (!pending.containsKey(s) && !leafGradients.contains(s)) {
      s.free(FREED_BY);
    }
  }

  /** Takes in what the log recorded since the last look. */
  private void see() {
    made.addAll(log.since(seen));
    seen = log.size();
  }
}
