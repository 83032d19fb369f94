package dev.ondevice.processor.analysis;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.util.IdentityHashMap;
import java.util.Optional;
import javax.lang.model.element.Element;

/**
 * The declarations of one file, by element, found in one scan: {@code Trees.getPath(element)} scans
 * the whole file for each element it is asked about.
 */
final class Declarations {
  private Declarations() {}

  /** The path of every class, method and variable declared in {@code unit}, by its element. */
  static IdentityHashMap<Element, Optional<TreePath>> of(Trees trees, CompilationUnitTree unit) {
    IdentityHashMap<Element, Optional<TreePath>> paths = new IdentityHashMap<>();
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitClass(ClassTree node, Void unused) {
        record();
        return super.visitClass(node, null);
      }

      @Override
      public Void visitMethod(MethodTree node, Void unused) {
        record();
        return super.visitMethod(node, null);
      }

      @Override
      public Void visitVariable(VariableTree node, Void unused) {
        record();
        return super.visitVariable(node, null);
      }

      private void record() {
        Element e = trees.getElement(getCurrentPath());
        if (e != null) {
          paths.putIfAbsent(e, Optional.of(getCurrentPath()));
        }
      }
    }.scan(unit, null);
    return paths;
  }
}
