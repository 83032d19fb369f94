package dev.ondevice;

import dev.ondevice.internal.backend.Storage;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Runs backward passes: walks the graph from the root in dependency order, summing the gradients
 * that reach each node, and accumulates into the {@code grad} of leaf tensors.
 */
final class BackwardEngine {
  private BackwardEngine() {}

  static void run(Tensor root, Tensor seed, boolean retainGraph) {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Set<Storage> assigned = Collections.newSetFromMap(new IdentityHashMap<>());
      assigned.add(seed.data.storage());
      Node start = root.gradFn();
      if (start == null) {
        accumulateLeaf(root, seed, assigned);
        return;
      }
      IdentityHashMap<Node, Integer> dependencies = countDependencies(start);
      IdentityHashMap<Node, Tensor> pending = new IdentityHashMap<>();
      pending.put(start, seed);
      ArrayDeque<Node> ready = new ArrayDeque<>();
      ready.push(start);
      while (!ready.isEmpty()) {
        Node node = ready.pop();
        Tensor grad = pending.remove(node);
        Tensor[] grads = node.apply(grad);
        Tensor[] inputs = node.inputs();
        for (int i = 0; i < inputs.length; i++) {
          Tensor input = inputs[i];
          if (input == null || !input.requiresGrad() || grads[i] == null) {
            continue;
          }
          Node next = input.gradFn();
          if (next == null) {
            accumulateLeaf(input, grads[i], assigned);
            continue;
          }
          pending.merge(next, grads[i], Tensor::add);
          if (dependencies.merge(next, -1, Integer::sum) == 0) {
            ready.push(next);
          }
        }
        if (!retainGraph) {
          node.release();
        }
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
   * gradient reach several leaves); otherwise it is copied first.
   */
  private static void accumulateLeaf(Tensor leaf, Tensor grad, Set<Storage> assigned) {
    Tensor current = leaf.grad();
    if (current == null) {
      Tensor g = grad.isContiguous() && assigned.add(grad.data.storage()) ? grad : grad.contiguousCopy();
      leaf.setGrad(g.detach());
    } else {
      leaf.setGrad(current.add(grad).detach());
    }
  }
}
