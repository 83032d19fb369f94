package dev.ondevice;

import dev.ondevice.internal.backend.Storage;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Runs backward passes: walks the graph from the root in dependency order, summing the gradients
 * that reach each node, and accumulates into the {@code grad} of leaf tensors. Memory the pass
 * makes is freed as soon as its last use has run ({@link GradientMemory}), and, unless the graph is
 * retained, each node drops its saved tensors once it has run.
 */
final class BackwardEngine {
  private BackwardEngine() {}

  static void run(Tensor root, Tensor seed, boolean retainGraph) {
    try (Autograd.Scope ignored = Autograd.noGrad();
        AllocationLog log = AllocationLog.open()) {
      GradientMemory memory = new GradientMemory(log);
      Set<Storage> assigned = Collections.newSetFromMap(new IdentityHashMap<>());
      assigned.add(seed.data.storage());
      Node start = root.gradFn();
      if (start == null) {
        accumulateLeaf(root, seed, assigned, memory);
        return;
      }
      IdentityHashMap<Node, Integer> dependencies = countDependencies(start);
      IdentityHashMap<Node, Tensor> pending = new IdentityHashMap<>();
      pending.put(start, seed);
      memory.hold(seed);
      ArrayDeque<Node> ready = new ArrayDeque<>();
      ready.push(start);
      while (!ready.isEmpty()) {
        Node node = ready.pop();
        Tensor grad = pending.remove(node);
        memory.drop(grad);
        Tensor[] grads = node.apply(grad);
        Tensor[] inputs = node.inputs();
        Tensor[] dropped = new Tensor[inputs.length + 1];
        dropped[inputs.length] = grad;
        for (int i = 0; i < inputs.length; i++) {
          Tensor input = inputs[i];
          if (input == null || !input.requiresGrad() || grads[i] == null) {
            continue;
          }
          Node next = input.gradFn();
          if (next == null) {
            dropped[i] = accumulateLeaf(input, grads[i], assigned, memory);
            continue;
          }
          Tensor before = pending.get(next);
          if (before == null) {
            pending.put(next, grads[i]);
            memory.hold(grads[i]);
          } else {
            Tensor sum = before.add(grads[i]);
            pending.put(next, sum);
            memory.drop(before);
            memory.hold(sum);
            dropped[i] = before;
          }
          if (dependencies.merge(next, -1, Integer::sum) == 0) {
            ready.push(next);
          }
        }
        if (!retainGraph) {
          node.release();
        }
        memory.freeDead(dropped);
      }
    }
  }

  /** For every node reachable from {@code start}, the number of edges into it. */
  private static IdentityHashMap<Node, Integer> countDependencies(Node start) {
    IdentityHashMap<Node, Integer> deps = new IdentityHashMap<>();
    Set<Node> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    ArrayDeque<Node> stack = new ArrayDeque<>();
    stack.push(start);
    seen.add(start);
    while (!stack.isEmpty()) {
      Node node = stack.pop();
      for (Tensor input : node.inputs()) {
        Node next = input == null || !input.requiresGrad() ? null : input.gradFn();
        if (next != null) {
          deps.merge(next, 1, Integer::sum);
          if (seen.add(next)) {
            stack.push(next);
          }
        }
      }
    }
    return deps;
  }

  /**
   * Adds to a leaf's gradient. A gradient is stored as it is only when it is contiguous and its
   * memory is not the seed's (the caller's) nor already another leaf's gradient (views of one
   * gradient reach several leaves); otherwise it is copied first. Returns the earlier gradient
   * where the sum replaced one that this pass had made, which nobody else has seen, else null.
   */
  private static Tensor accumulateLeaf(
      Tensor leaf, Tensor grad, Set<Storage> assigned, GradientMemory memory) {
    Tensor current = leaf.grad();
    Tensor g;
    Tensor replaced = null;
    if (current == null) {
      g = grad.isContiguous() && assigned.add(grad.data.storage()) ? grad : grad.contiguousCopy();
    } else {
      g = current.add(grad);
      replaced = memory.replaced(current);
    }
    memory.keep(g);
    leaf.setGradFromBackward(g.detach(), memory.made(g));
    return replaced;
  }
}
