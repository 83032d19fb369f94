package dev.ondevice.processor.analysis;

import com.sun.source.tree.MethodTree;
import com.sun.source.util.TreePath;
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

/**
 * Where the tensors a method of the class being analysed returns are, for the arguments of one
 * call: its body interpreted with the places of the call's arguments, its findings dropped (the
 * method's own analysis reports them), its returns joined. {@code preprocess(text)} building its
 * inputs on the CPU gives its caller a map of CPU tensors; {@code scale(x)} returning {@code
 * x.mul(2)} gives back where {@code x} is. Answered once per method and places of the arguments;
 * a method that calls itself, directly or not, gives nothing known.
 */
final class CallResults {
  /** How deep calls are followed from one call of the class. */
  private static final int MAX_DEPTH = 3;

  private final IdentityHashMap<ExecutableElement, Map<List<Place>, Value>> known = new IdentityHashMap<>();
  private final Set<ExecutableElement> inProgress = Collections.newSetFromMap(new IdentityHashMap<>());

  /**
   * The value a call of {@code m} returns given {@code args}, or null where it is not known: a
   * method not in this class's source, abstract, overridable by a subclass elsewhere, or recursive.
   */
  Value of(ExecutableElement m, List<Value> args, AnalysisContext ctx) {
    if (!ctx.callSites().records(m) || inProgress.contains(m) || inProgress.size() >= MAX_DEPTH
        || !(m.getEnclosingElement() instanceof TypeElement owner) || overridable(m, owner)) {
      return null;
    }
    List<Place> key = new ArrayList<>(args.size());
    args.forEach(a -> key.add(a.place()));
    Map<List<Place>, Value> byArguments = known.computeIfAbsent(m, k -> new HashMap<>());
    if (byArguments.containsKey(key)) {
      return byArguments.get(key);
    }
    TreePath body = ctx.trees().getPath(m);
    if (body == null || !(body.getLeaf() instanceof MethodTree tree) || tree.getBody() == null
        || runsABatchLoop(tree, ctx)) {
      byArguments.put(key, null);
      return null;
    }
    inProgress.add(m);
    ctx.pushBuffer();
    Value result;
    try {
      boolean instance = !m.getModifiers().contains(Modifier.STATIC);
      ModelScope scope = new ModelScope(ctx.types(), owner, m, instance,
          ctx.types().isModel(owner.asType()) && ctx.placesPartsItself(owner));
      MethodInterpreter interpreter = new MethodInterpreter(ctx, scope, m, Env.start());
      interpreter.given(args);
      interpreter.method(body, scope);
      result = interpreter.returned();
    } catch (RuntimeException | StackOverflowError e) {
      result = null;
    } finally {
      ctx.discardBuffer();
      inProgress.remove(m);
    }
    byArguments.put(key, result);
    return result;
  }

  /**
   * Whether a method runs a batch loop (an epoch of training or evaluation): what it returns is an
   * aggregate, not worth interpreting the whole epoch again for each call.
   */
  private static boolean runsABatchLoop(MethodTree tree, AnalysisContext ctx) {
    return TreeSearch.contains(tree.getBody(), t -> (t instanceof com.sun.source.tree.EnhancedForLoopTree
        || t instanceof com.sun.source.tree.WhileLoopTree || t instanceof com.sun.source.tree.ForLoopTree)
        && ctx.stepsEveryIteration(t), t -> t instanceof com.sun.source.tree.ClassTree)
        || TreeSearch.contains(tree.getBody(), t -> t instanceof com.sun.source.tree.EnhancedForLoopTree f
            && isBatchSource(f, tree, ctx), t -> t instanceof com.sun.source.tree.ClassTree);
  }

  private static boolean isBatchSource(com.sun.source.tree.EnhancedForLoopTree loop, MethodTree tree,
      AnalysisContext ctx) {
    TreePath method = ctx.trees().getPath(ctx.unit(), tree);
    TreePath at = method == null ? null : TreePath.getPath(method, loop.getExpression());
    javax.lang.model.type.TypeMirror t = at == null ? null : ctx.trees().getTypeMirror(at);
    return t != null && ctx.types().hasInherited(t, dev.ondevice.annotations.BatchSource.class);
  }

  /** Whether a subclass compiled elsewhere could override {@code m}, so that its body need not be what runs. */
  private static boolean overridable(ExecutableElement m, TypeElement owner) {
    return !m.getModifiers().contains(Modifier.STATIC) && !m.getModifiers().contains(Modifier.PRIVATE)
        && !m.getModifiers().contains(Modifier.FINAL) && !owner.getModifiers().contains(Modifier.FINAL)
        && (m.getModifiers().contains(Modifier.PUBLIC) || m.getModifiers().contains(Modifier.PROTECTED));
  }
}
