package dev.ondevice;

/**
 * One recorded op of the autograd graph: its tensor inputs and the function from the gradient of
 * its output to the gradients of its inputs.
 */
final class Node {
  private static final String FREED_UNUSED =
      "as soon as its op had run, as nothing records its gradient";
  private static final String FREED_RELEASED =
      "by backward(), which frees what an op kept for its gradient alone;"
          + " call backward(true) to keep the graph and these tensors";

  /** Computes input gradients; entry i may be null when {@code needs[i]} is false. */
  @FunctionalInterface
  interface Backward {
    Tensor[] apply(Tensor grad, boolean[] needs);
  }

  private final String name;
  private final Tensor[] inputs;
  private final boolean[] needs;
  private Backward backward;
  private Tensor[] saved = new Tensor[0];
  private int[] savedVersions = new int[0];
  private Tensor[] owned = new Tensor[0];

  private Node(String name, Tensor[] inputs, Backward backward) {
    this.name = name;
    this.inputs = inputs;
    this.needs = new boolean[inputs.length];
    for (int i = 0; i < inputs.length; i++) {
      needs[i] = inputs[i] != null && inputs[i].requiresGrad();
    }
    this.backward = backward;
  }

  /**
   * Attaches a node to {@code out} when gradient mode is on and an input requires grad; returns
   * {@code out}. {@code saved} are the tensors the backward function reads: modifying one in place
   * before backward is an error.
   */
  static Tensor record(
      String name, Tensor out, Tensor[] inputs, Tensor[] saved, Backward backward) {
    if (!Autograd.isGradEnabled()) {
      return out;
    }
    boolean any = false;
    for (Tensor t : inputs) {
      any |= t != null && t.requiresGrad();
    }
    if (!any) {
      return out;
    }
    Node node = new Node(name, inputs, backward);
    node.saved = saved;
    node.savedVersions = new int[saved.length];
    for (int i = 0; i < saved.length; i++) {
      node.savedVersions[i] = saved[i].data.storage().version();
    }
    out.attach(node);
    MemoryScope.computed(out, inputs);
    return out;
  }

  /**
   * The operands the gradient of a product of {@code a} and {@code b} reads: {@code b} for {@code
   * a}'s gradient, {@code a} for {@code b}'s. An operand whose partner needs no gradient is not
   * saved, so changing it in place before backward is fine, as in PyTorch.
   */
  static Tensor[] savedForProduct(Tensor a, Tensor b) {
    boolean aNeeds = a.requiresGrad();
    boolean bNeeds = b.requiresGrad();
    return aNeeds && bNeeds
        ? new Tensor[] {a, b}
        : aNeeds ? new Tensor[] {b} : bNeeds ? new Tensor[] {a} : new Tensor[0];
  }

  static Tensor record(String name, Tensor out, Tensor[] inputs, Backward backward) {
    return record(name, out, inputs, new Tensor[0], backward);
  }

  /**
   * As {@link #record(String, Tensor, Tensor[], Tensor[], Backward)}, where the backward function
   * also reads {@code owned}: tensors the op made for it alone and never returned (such as a
   * convolution's unfolded input). Their memory is freed when the node releases its saved tensors,
   * or at once when no node is recorded.
   */
  static Tensor recordOwning(
      String name, Tensor out, Tensor[] inputs, Tensor[] saved, Tensor[] owned, Backward backward) {
    record(name, out, inputs, saved, backward);
    Node node = out.gradFn();
    if (node == null) {
      freeAll(owned, FREED_UNUSED);
    } else {
      node.owned = owned;
    }
    return out;
  }

  String name() {
    return name;
  }

  Tensor[] inputs() {
    return inputs;
  }

  /** Runs the backward function. */
  Tensor[] apply(Tensor grad) {
    if (backward == null) {
      throw new IllegalStateException(
          "Trying to backward through the graph a second time (the saved"
              + " tensors of "
              + name
              + " were freed after the first backward); call backward(true) the"
              + " first time to keep the graph");
    }
    for (int i = 0; i < saved.length; i++) {
      int now = saved[i].data.storage().version();
      if (now != savedVersions[i]) {
        throw new IllegalStateException(
            "One of the tensors needed for the gradient of "
                + name
                + " has been modified by an in-place operation: a tensor of shape "
                + saved[i].shape()
                + " is at version "
                + now
                + "; expected version "
                + savedVersions[i]
                + ". Use the out-of-place form of the op (add instead of addi), or clone() the tensor first");
      }
    }
    return backward.apply(grad, needs);
  }

  /**
   * Drops the saved tensors after a backward pass that does not retain the graph, and frees the
   * memory of those the op made for its backward function alone.
   */
  void release() {
    backward = null;
    saved = new Tensor[0];
    freeAll(owned, FREED_RELEASED);
    owned = new Tensor[0];
  }

  private static void freeAll(Tensor[] tensors, String why) {
    for (Tensor t : tensors) {
      t.data.storage().free(why);
    }
  }
}
