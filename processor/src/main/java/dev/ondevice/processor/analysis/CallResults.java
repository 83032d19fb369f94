package dev.ondevice.processor.analysis;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.EnhancedForLoopTree;
import com.sun.source.tree.ForLoopTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.WhileLoopTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import dev.ondevice.annotations.BatchSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeMirror;

/**
 * Where the tensors a method of the class being analysed returns are, for the arguments of one
 * call: its body interpreted with the places of the call's arguments, its findings dropped (the
 * method's own analysis reports them), its returns joined. {@code preprocess(text)} building its
 * inputs on the CPU gives its caller a map of CPU tensors; {@code scale(x)} returning {@code
 * x.mul(2)} gives back where {@code x} is. Answered once per method and places of the arguments; a
 * method that calls itself, directly or not, gives nothing known.
 */
final class CallResults {
  /** How deep calls are followed from one call of the class. */
  private static final int MAX_DEPTH = 5;

  /**
   * What one call gives back: the value it returns (null where none is known) and the arguments its
   * body meets with tensors on a device while they are on the CPU.
   */
  record Outcome(Value returned, List<RejectedArgument> rejected) {}

  private static final Outcome NOTHING = new Outcome(null, List.of());

  private final IdentityHashMap<ExecutableElement, Map<List<Place>, Outcome>> known =
      new IdentityHashMap<>();

  /** Per method: whether it runs a batch loop, and is not interpreted again for its results. */
  private final IdentityHashMap<ExecutableElement, Boolean> runsABatchLoop =
      new IdentityHashMap<>();

  /** Per method: whether it moves tensors itself. */
  private final IdentityHashMap<ExecutableElement, Boolean> movesItself = new IdentityHashMap<>();

  private final Set<ExecutableElement> inProgress =
      Collections.newSetFromMap(new IdentityHashMap<>());

  /** Methods in progress whose interpretation met the depth limit: their outcomes are not kept. */
  private final Set<ExecutableElement> cutShort =
      Collections.newSetFromMap(new IdentityHashMap<>());

  /**
   * Whether the calls of {@code m} are followed into its body: a method in this class's source, not
   * abstract, not overridable by a subclass elsewhere, and not running a batch loop.
   */
  boolean follows(ExecutableElement m, AnalysisContext ctx) {
    if (!ctx.callSites().records(m)
        || !(m.getEnclosingElement() instanceof TypeElement owner)
        || overridable(m, owner)) {
      return false;
    }
    TreePath body = ctx.pathOf(m);
    return body != null
        && body.getLeaf() instanceof MethodTree tree
        && tree.getBody() != null
        && !runsABatchLoop.computeIfAbsent(m, k -> runsABatchLoop(body, ctx));
  }

  /**
   * Whether the tensors a caller gives {@code m} on the CPU are the caller's to move where its body
   * needs them: its calls are followed, and it moves no tensor itself (a method that moves some of
   * its inputs, {@code ids.to(model.device())}, is the one to move the others it forgets).
   */
  boolean leavesMovesToCallers(ExecutableElement m, AnalysisContext ctx) {
    return follows(m, ctx)
        && !movesItself.computeIfAbsent(m, k -> MethodInterpreter.movesTensors(k, ctx));
  }

  /**
   * What a call of {@code m} given {@code args} gives back, or {@link #NOTHING} where it is not
   * followed ({@link #follows}), is recursive, or is deeper than {@link #MAX_DEPTH} calls. An
   * outcome is kept for the next call with arguments in the same places, unless a call inside it
   * was cut short by the depth limit: a shallower call of the same method would see more.
   */
  Outcome of(ExecutableElement m, List<Value> args, AnalysisContext ctx) {
    if (inProgress.size() >= MAX_DEPTH && !inProgress.contains(m) && follows(m, ctx)) {
      cutShort.addAll(inProgress); // their outcomes hold less than a shallower call of them would
      return NOTHING;
    }
    if (inProgress.contains(m) || !follows(m, ctx)) {
      return NOTHING;
    }
    TypeElement owner = (TypeElement) m.getEnclosingElement();
    List<Place> key = new ArrayList<>(args.size());
    args.forEach(a -> key.add(a.place()));
    Map<List<Place>, Outcome> byArguments = known.computeIfAbsent(m, k -> new HashMap<>());
    Outcome cached = byArguments.get(key);
    if (cached != null) {
      return cached;
    }
    TreePath body = ctx.pathOf(m);
    inProgress.add(m);
    ctx.pushBuffer();
    ctx.pushRejections();
    Value result;
    List<RejectedArgument> rejected;
    try {
      boolean instance = !m.getModifiers().contains(Modifier.STATIC);
      ModelScope scope =
          new ModelScope(
              ctx.types(),
              owner,
              m,
              instance,
              ctx.types().isModel(owner.asType()) && ctx.placesPartsItself(owner),
              ctx.deviceFieldMovedTo(owner));
      MethodInterpreter interpreter = new MethodInterpreter(ctx, scope, m, Env.start(), false);
      interpreter.given(args);
      interpreter.method(body, scope);
      result = interpreter.returned();
      result = result == null ? null : result.withMadeAtOutside(body.getLeaf());
    } catch (RuntimeException | StackOverflowError e) {
      result = null;
    } finally {
      rejected = ctx.popRejections();
      ctx.discardBuffer();
      inProgress.remove(m);
    }
    Outcome outcome = new Outcome(result, List.copyOf(rejected));
    if (!cutShort.remove(m)) {
      byArguments.put(key, outcome);
    }
    return outcome;
  }

  /**
   * Whether a method runs a batch loop (an epoch of training or evaluation): what it returns is an
   * aggregate, not worth interpreting the whole epoch again for each call.
   */
  private static boolean runsABatchLoop(TreePath method, AnalysisContext ctx) {
    boolean[] found = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void scan(Tree tree, Void unused) {
        if (found[0] || tree == null || tree instanceof ClassTree) {
          return null;
        }
        if (tree instanceof EnhancedForLoopTree f) {
          TypeMirror t =
              ctx.trees().getTypeMirror(new TreePath(getCurrentPath(), f.getExpression()));
          found[0] = t != null && ctx.types().hasInherited(t, BatchSource.class);
        }
        if (tree instanceof EnhancedForLoopTree
            || tree instanceof ForLoopTree
            || tree instanceof WhileLoopTree) {
          found[0] |= ctx.stepsEveryIteration(new TreePath(getCurrentPath(), tree));
        }
        return super.scan(tree, null);
      }
    }.scan(method, null);
    return found[0];
  }

  /**
   * Whether a subclass compiled elsewhere could override {@code m}, so that its body need not be
   * what runs.
   */
  private static boolean overridable(ExecutableElement m, TypeElement owner) {
    return !m.getModifiers().contains(Modifier.STATIC)
        && !m.getModifiers().contains(Modifier.PRIVATE)
        && !m.getModifiers().contains(Modifier.FINAL)
        && !owner.getModifiers().contains(Modifier.FINAL)
        && (m.getModifiers().contains(Modifier.PUBLIC)
            || m.getModifiers().contains(Modifier.PROTECTED));
  }
}
