package dev.ondevice.processor.analysis;

import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;

/**
 * What a check may read of the interpretation of one body while it runs: where the code runs (a
 * batch loop, a step), the values computed so far and the scope. Read only: checks report, and
 * never change what the interpreter knows.
 */
interface Interpretation {
  /** The class and method interpreted. */
  ModelScope scope();

  /** Whether the code runs inside a batch loop or a step method. */
  boolean inBatchLoop();

  /**
   * The innermost batch loop, or the lambda a batch source runs once per batch; null outside one.
   */
  Tree batchLoop();

  /** Why the body runs once per batch where no loop or {@code @Step} says so, or null. */
  String stepReason();

  /** Why the body runs on every forward pass of a model, or null. */
  String forwardStep();

  /** The compile-time constant value of an expression, or null. */
  Object constant(TreePath path);

  /** Whether a call created a tensor on the CPU for want of a device ({@code Tensor.zeros(3)}). */
  boolean isCpuFactory(Tree call);

  /** Whether {@code call} invokes a tensor move. */
  boolean isMove(TreePath call);

  /** The value a variable or a call's argument had when it was last evaluated. */
  Value valueOf(Tree t);

  /**
   * When the code runs once per step, said for a message ({@code on every batch}); null when it
   * does not.
   */
  default String everyStep() {
    if (inBatchLoop()) {
      return "on every batch";
    }
    return forwardStep() != null ? "on every forward pass" : null;
  }

  /** Whether the code at {@code path} runs on some batches only ({@link SomeBatchesOnly}). */
  default boolean runsOnceOrPeriodically(TreePath path) {
    return SomeBatchesOnly.runs(path, batchLoop());
  }

  /** Whether this is a loop's second iteration, from the values its first one left. */
  boolean laterIteration();
}
