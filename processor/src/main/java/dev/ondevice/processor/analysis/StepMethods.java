package dev.ondevice.processor.analysis;

import com.sun.source.tree.EnhancedForLoopTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.WhileLoopTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import dev.ondevice.annotations.BatchSource;
import dev.ondevice.annotations.Step;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.IdentityHashMap;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeMirror;

/**
 * The methods of the compilation that run once per step without saying so with {@code @Step}:
 *
 * <ul>
 *   <li>called once per batch: a method whose body is in the compilation, called in a batch loop
 *       (over a batch source, a batch iterator, or a loop that trains on every iteration, {@link
 *       TrainingLoops}) on every batch ({@link SomeBatchesOnly} says which calls are not), or from
 *       such a method ({@code strategy.step(model, xb, yb)}, a {@code meter.update(loss)} of one's
 *       own);
 *   <li>run on every forward pass: the {@code forward} methods of models, and the methods of the
 *       compilation they call.
 * </ul>
 *
 * Found before the bodies of a top-level class are interpreted, by a look at its loops and calls,
 * and kept for the compilation: a class analysed later sees what the earlier ones call. A method of
 * a class javac analysed before the loop that calls it was seen is not found.
 */
final class StepMethods {
  /**
   * Per method called once per batch: where, for messages ({@code "the batch loop of
   * Trainer.fit"}).
   */
  private final IdentityHashMap<ExecutableElement, String> perBatch = new IdentityHashMap<>();

  /**
   * Per method run on every forward pass: why, for messages ({@code "Net.forward runs it on every
   * step"}).
   */
  private final IdentityHashMap<ExecutableElement, String> perForward = new IdentityHashMap<>();

  /** Where {@code m} is called once per batch, or null where it is not known to be. */
  String calledPerBatch(ExecutableElement m) {
    return perBatch.get(m);
  }

  /** Why {@code m} runs on every forward pass, or null where it is not known to. */
  String runsPerForward(ExecutableElement m) {
    return perForward.get(m);
  }

  /** Finds the step methods that the top-level class at {@code classPath} reveals. */
  void scan(TreePath classPath, AnalysisContext ctx) {
    Deque<ExecutableElement> batchWork = new ArrayDeque<>();
    Deque<ExecutableElement> forwardWork = new ArrayDeque<>();
    new TreePathScanner<Void, Void>() {
      private String method = "";

      @Override
      public Void visitMethod(MethodTree node, Void unused) {
        String outer = method;
        Element e = ctx.trees().getElement(getCurrentPath());
        if (e instanceof ExecutableElement m) {
          method = ownerName(m) + "." + m.getSimpleName();
          if (isModelForward(m, ctx)
              && perForward.putIfAbsent(m, method + " runs on every step") == null) {
            forwardWork.add(m);
          }
        }
        super.visitMethod(node, null);
        method = outer;
        return null;
      }

      @Override
      public Void visitEnhancedForLoop(EnhancedForLoopTree node, Void unused) {
        TypeMirror source =
            ctx.trees().getTypeMirror(new TreePath(getCurrentPath(), node.getExpression()));
        if ((source != null && ctx.types().hasInherited(source, BatchSource.class))
            || ctx.stepsEveryIteration(getCurrentPath())) {
          callsPerBatch(
              new TreePath(getCurrentPath(), node.getStatement()),
              node,
              method,
              ctx,
              batchWork,
              forwardWork);
        }
        return super.visitEnhancedForLoop(node, null);
      }

      @Override
      public Void visitForLoop(com.sun.source.tree.ForLoopTree node, Void unused) {
        if (ctx.stepsEveryIteration(getCurrentPath())) {
          callsPerBatch(
              new TreePath(getCurrentPath(), node.getStatement()),
              node,
              method,
              ctx,
              batchWork,
              forwardWork);
        }
        return super.visitForLoop(node, null);
      }

      @Override
      public Void visitWhileLoop(WhileLoopTree node, Void unused) {
        if (ctx.stepsEveryIteration(getCurrentPath())) {
          callsPerBatch(
              new TreePath(getCurrentPath(), node.getStatement()),
              node,
              method,
              ctx,
              batchWork,
              forwardWork);
          return super.visitWhileLoop(node, null);
        }
        if (MethodInterpreter.skipParens(node.getCondition()) instanceof MethodInvocationTree call
            && call.getMethodSelect() instanceof MemberSelectTree select
            && select.getIdentifier().contentEquals("hasNext")) {
          TreePath conditionPath = new TreePath(getCurrentPath(), node.getCondition());
          TreePath callPath = new TreePath(conditionPath, call);
          TypeMirror iterator =
              ctx.trees()
                  .getTypeMirror(
                      new TreePath(new TreePath(callPath, select), select.getExpression()));
          if (iterator != null && ctx.types().isBatchIterator(iterator)) {
            callsPerBatch(
                new TreePath(getCurrentPath(), node.getStatement()),
                node,
                method,
                ctx,
                batchWork,
                forwardWork);
          }
        }
        return super.visitWhileLoop(node, null);
      }
    }.scan(classPath, null);
    close(batchWork, forwardWork, ctx);
  }

  /** The calls of methods with a body here in the batch loop {@code loop}, on every batch. */
  private void callsPerBatch(
      TreePath body,
      Tree loop,
      String method,
      AnalysisContext ctx,
      Deque<ExecutableElement> batchWork,
      Deque<ExecutableElement> forwardWork) {
    forEachCall(
        body,
        ctx,
        (call, m) -> {
          if (!SomeBatchesOnly.runs(call, loop)) {
            add(m, "called in the batch loop of " + method, true, ctx, batchWork, forwardWork);
          }
        });
  }

  /**
   * Records a step method: a model's own method is run on every step as its {@code forward} is (its
   * inputs are on the model's device); any other is called once per batch where {@code
   * perBatchCaller}, else run on every forward pass.
   */
  private void add(
      ExecutableElement m,
      String why,
      boolean perBatchCaller,
      AnalysisContext ctx,
      Deque<ExecutableElement> batchWork,
      Deque<ExecutableElement> forwardWork) {
    boolean modelMethod =
        !m.getModifiers().contains(Modifier.STATIC)
            && m.getEnclosingElement() instanceof TypeElement owner
            && ctx.types().isModel(owner.asType());
    if (perBatchCaller && !modelMethod) {
      if (perBatch.putIfAbsent(m, why) == null) {
        batchWork.add(m);
      }
    } else if (perForward.putIfAbsent(m, why) == null) {
      forwardWork.add(m);
    }
  }

  /** Adds what the step methods call, until nothing is new. */
  private void close(
      Deque<ExecutableElement> batchWork,
      Deque<ExecutableElement> forwardWork,
      AnalysisContext ctx) {
    while (!batchWork.isEmpty() || !forwardWork.isEmpty()) {
      boolean perBatchCaller = !batchWork.isEmpty();
      ExecutableElement caller = perBatchCaller ? batchWork.pop() : forwardWork.pop();
      TreePath body = ctx.pathOf(caller);
      if (body == null) {
        continue;
      }
      String why =
          "called from "
              + ownerName(caller)
              + "."
              + caller.getSimpleName()
              + (perBatchCaller
                  ? ", which is called once per batch"
                  : ", which runs on every step");
      forEachCall(body, ctx, (call, m) -> add(m, why, perBatchCaller, ctx, batchWork, forwardWork));
    }
  }

  /**
   * The calls under {@code root} of methods whose body is in this compilation and that are not
   * {@code @Step} already; not those in lambdas or in classes declared there, which run elsewhere.
   */
  private static void forEachCall(
      TreePath root,
      AnalysisContext ctx,
      java.util.function.BiConsumer<TreePath, ExecutableElement> action) {
    for (TreePath call : TreeSearch.callsWhereWritten(root)) {
      if (ctx.trees().getElement(call) instanceof ExecutableElement m
          && !m.getModifiers().contains(Modifier.ABSTRACT)
          && !ctx.types().annotations().has(m, Step.class)) {
        MethodTree tree = ctx.trees().getTree(m);
        if (tree != null && tree.getBody() != null) {
          action.accept(call, m);
        }
      }
    }
  }

  /** Whether {@code m} is the {@code forward} of a model of the user's. */
  private static boolean isModelForward(ExecutableElement m, AnalysisContext ctx) {
    return m.getSimpleName().contentEquals("forward")
        && !m.getModifiers().contains(Modifier.STATIC)
        && m.getEnclosingElement() instanceof TypeElement owner
        && ctx.types().isModel(owner.asType());
  }

  private static String ownerName(ExecutableElement m) {
    return m.getEnclosingElement().getSimpleName().toString();
  }
}
