package dev.ondevice.processor.analysis;

import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.LiteralTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;

/**
 * Batch sources known to hand out batches in ordinary (pageable) host memory: a loader made here
 * with its constructor ({@code new DataLoader(ds, 64)}) or with a builder chain that does not call
 * {@code pinMemory(true)} ({@code DataLoader.builder(ds).batchSize(64).build()}), directly or
 * through a local variable assigned once. A non-blocking copy of such a batch cannot overlap with
 * compute ({@code NonBlockingFromPageable}). A loader given as a parameter or held in a field may
 * be either, and is not known.
 */
final class PageableLoaders {
  private PageableLoaders() {}

  /** Whether the batch source at {@code source} is known to make pageable batches. */
  static boolean pageable(AnalysisContext ctx, TreePath source) {
    Tree t = MethodInterpreter.skipParens(source.getLeaf());
    TreePath at = t == source.getLeaf() ? source : new TreePath(source, t);
    if (t instanceof IdentifierTree) {
      Element e = ctx.trees().getElement(at);
      return e != null && e.getKind() == ElementKind.LOCAL_VARIABLE && initializedOnce(ctx, e);
    }
    if (t instanceof NewClassTree) {
      return true; // the constructors take no pinning flag: new DataLoader(ds, 64) is pageable
    }
    if (!(t instanceof MethodInvocationTree build)
        || !(build.getMethodSelect() instanceof MemberSelectTree select)
        || !select.getIdentifier().contentEquals("build")) {
      return false;
    }
    ExpressionTree link = select.getExpression();
    while (MethodInterpreter.skipParens(link) instanceof MethodInvocationTree call
        && call.getMethodSelect() instanceof MemberSelectTree step) {
      if (step.getIdentifier().contentEquals("pinMemory")) {
        return call.getArguments().size() == 1
            && MethodInterpreter.skipParens(call.getArguments().get(0))
                instanceof LiteralTree literal
            && Boolean.FALSE.equals(literal.getValue());
      }
      if (step.getIdentifier().contentEquals("builder")) {
        return true;
      }
      link = step.getExpression();
    }
    return false;
  }

  /** A local never assigned after its declaration, whose initializer makes pageable batches. */
  private static boolean initializedOnce(AnalysisContext ctx, Element local) {
    TreePath initializer = LocalInitializers.soleInitializer(ctx, local);
    return initializer != null && pageable(ctx, initializer);
  }
}
