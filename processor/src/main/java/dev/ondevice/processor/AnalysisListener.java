package dev.ondevice.processor;

import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TaskEvent;
import com.sun.source.util.TaskListener;
import com.sun.source.util.TreePath;
import com.sun.source.util.Trees;
import dev.ondevice.processor.analysis.AnalysisOptions;
import dev.ondevice.processor.analysis.CheckId;
import dev.ondevice.processor.analysis.DeviceAnalysis;
import dev.ondevice.processor.analysis.Finding;
import dev.ondevice.processor.analysis.Severity;
import javax.lang.model.element.TypeElement;
import javax.tools.Diagnostic;

/**
 * Runs the device analysis on each class once javac has attributed and flow-analysed it, and
 * reports its findings through javac. Uses only the public {@code com.sun.source} API.
 */
final class AnalysisListener implements TaskListener {
  private final Trees trees;
  private final DeviceAnalysis analysis;
  private final AnalysisOptions options;

  AnalysisListener(JavacTask task, AnalysisOptions options) {
    this.trees = Trees.instance(task);
    this.options = options;
    this.analysis = new DeviceAnalysis(trees, task.getElements(), task.getTypes(), options);
  }

  /**
   * The path of a top-level class of {@code unit}, or null for any other class. javac reports
   * top-level classes only (their member classes are attributed and analysed with them), and the
   * analysis of a top-level class covers its member classes: one that came on its own would be
   * reported twice.
   */
  private TreePath pathOf(TypeElement type, CompilationUnitTree unit) {
    TreePath unitPath = new TreePath(unit);
    for (Tree t : unit.getTypeDecls()) {
      TreePath path = new TreePath(unitPath, t);
      if (type.equals(trees.getElement(path))) {
        return path;
      }
    }
    return null;
  }

  @Override
  public void finished(TaskEvent e) {
    if (e.getKind() != TaskEvent.Kind.ANALYZE
        || e.getTypeElement() == null
        || e.getCompilationUnit() == null) {
      return;
    }
    TreePath path = pathOf(e.getTypeElement(), e.getCompilationUnit());
    if (path == null) {
      return;
    }
    try {
      for (Finding f : analysis.analyze(path)) {
        Diagnostic.Kind kind =
            f.severity() == Severity.ERROR ? Diagnostic.Kind.ERROR : Diagnostic.Kind.WARNING;
        trees.printMessage(kind, f.formatted(), f.tree(), e.getCompilationUnit());
      }
    } catch (RuntimeException | StackOverflowError ex) {
      Severity severity = options.severity(CheckId.ANALYSIS_FAILURE, false);
      if (severity != Severity.OFF) {
        trees.printMessage(
            severity == Severity.ERROR ? Diagnostic.Kind.ERROR : Diagnostic.Kind.WARNING,
            "["
                + CheckId.ANALYSIS_FAILURE.id()
                + "] the device analysis of "
                + e.getTypeElement()
                + " failed ("
                + ex
                + ") and skipped it; please report it",
            path.getLeaf(),
            e.getCompilationUnit());
      }
    }
  }
}
