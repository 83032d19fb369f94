package dev.ondevice.processor;

import com.sun.source.util.TaskEvent;
import com.sun.source.util.TaskListener;
import com.sun.source.util.TreePath;
import com.sun.source.util.Trees;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.annotation.processing.Messager;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.tools.Diagnostic;

/**
 * The processor's model-declaration errors, held until javac has attributed and analysed their
 * class, then reported there. An error reported while annotations are processed stops javac before
 * it attributes anything, which would hide every method-body finding of the build (and javac's own
 * errors) until the declaration is fixed; held, they all show in one build. Errors whose class is
 * never analysed (javac stopped early, {@code -proc:only}) are reported when the compilation ends.
 * Everything else goes straight to javac's messager.
 */
final class HeldErrors implements Messager, TaskListener {
  private final Trees trees;
  private final Messager messager;

  /**
   * By the qualified name of their top-level class: javac enters new symbols for the classes after
   * the last round, so the elements of a round are not those of the events.
   */
  private final Map<String, List<Held>> byClass = new LinkedHashMap<>();

  /** An error and where it goes, as a path: the trees outlive the rounds' symbols. */
  private record Held(String message, TreePath where) {}

  HeldErrors(Trees trees, Messager messager) {
    this.trees = trees;
    this.messager = messager;
  }

  @Override
  public void printMessage(Diagnostic.Kind kind, CharSequence msg) {
    messager.printMessage(kind, msg);
  }

  @Override
  public void printMessage(Diagnostic.Kind kind, CharSequence msg, Element e) {
    printMessage(kind, msg, e, null);
  }

  @Override
  public void printMessage(Diagnostic.Kind kind, CharSequence msg, Element e, AnnotationMirror a) {
    TypeElement top = kind == Diagnostic.Kind.ERROR ? topLevel(e) : null;
    TreePath element = top == null ? null : trees.getPath(e);
    if (element == null) {
      messager.printMessage(kind, msg, e, a);
      return;
    }
    TreePath annotation = a == null ? null : trees.getPath(e, a);
    byClass
        .computeIfAbsent(top.getQualifiedName().toString(), t -> new ArrayList<>())
        .add(new Held(msg.toString(), annotation != null ? annotation : element));
  }

  @Override
  public void printMessage(
      Diagnostic.Kind kind, CharSequence msg, Element e, AnnotationMirror a, AnnotationValue v) {
    messager.printMessage(kind, msg, e, a, v);
  }

  @Override
  public void finished(TaskEvent e) {
    if (e.getKind() == TaskEvent.Kind.ANALYZE && e.getTypeElement() != null) {
      report(byClass.remove(e.getTypeElement().getQualifiedName().toString()));
    } else if (e.getKind() == TaskEvent.Kind.COMPILATION) {
      byClass.values().forEach(this::report);
      byClass.clear();
    }
  }

  private void report(List<Held> errors) {
    if (errors == null) {
      return;
    }
    for (Held h : errors) {
      trees.printMessage(
          Diagnostic.Kind.ERROR, h.message(), h.where().getLeaf(), h.where().getCompilationUnit());
    }
  }

  private static TypeElement topLevel(Element e) {
    TypeElement top = null;
    for (Element c = e; c != null && !(c instanceof PackageElement); c = c.getEnclosingElement()) {
      if (c instanceof TypeElement t) {
        top = t;
      }
    }
    return top;
  }
}
