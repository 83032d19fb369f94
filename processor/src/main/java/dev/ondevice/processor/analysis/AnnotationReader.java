package dev.ondevice.processor.analysis;

import java.lang.annotation.Annotation;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Name;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;

/**
 * Reads annotations through their mirrors. {@link Element#getAnnotation} builds a reflective proxy
 * (a dynamic proxy class the first time, method handles on every call), which is most of what
 * reading an annotation costs in a cold javac; a mirror is already there. Annotation types are
 * compared by qualified {@link Name}, which javac interns, so a comparison allocates nothing. One
 * instance per compilation.
 */
public final class AnnotationReader {
  private final Elements elements;
  private final IdentityHashMap<Class<? extends Annotation>, Name> names = new IdentityHashMap<>();

  /** A reader that resolves annotation names with {@code elements}. */
  public AnnotationReader(Elements elements) {
    this.elements = elements;
  }

  /** The mirror of {@code annotation} on {@code e}, or null when {@code e} does not carry it. */
  public AnnotationMirror find(Element e, Class<? extends Annotation> annotation) {
    List<? extends AnnotationMirror> mirrors = e.getAnnotationMirrors();
    if (mirrors.isEmpty()) {
      return null;
    }
    Name name = names.computeIfAbsent(annotation, a -> elements.getName(a.getCanonicalName()));
    for (AnnotationMirror m : mirrors) {
      if (((TypeElement) m.getAnnotationType().asElement()).getQualifiedName().equals(name)) {
        return m;
      }
    }
    return null;
  }

  /** Whether {@code e} carries {@code annotation}. */
  public boolean has(Element e, Class<? extends Annotation> annotation) {
    return find(e, annotation) != null;
  }

  /** The {@code String} member {@code member} of {@code m}: its value, or the member's default. */
  public static String string(AnnotationMirror m, String member) {
    return (String) value(m, member);
  }

  /** The {@code boolean} member {@code member} of {@code m}: its value, or the member's default. */
  public static boolean bool(AnnotationMirror m, String member) {
    return (Boolean) value(m, member);
  }

  /**
   * The name of the enum constant that member {@code member} of {@code m} holds, or of its default.
   */
  public static String enumConstant(AnnotationMirror m, String member) {
    return ((VariableElement) value(m, member)).getSimpleName().toString();
  }

  /**
   * The {@code String[]} member {@code member} of {@code m}: its values, or the member's default.
   */
  public static List<String> strings(AnnotationMirror m, String member) {
    Object v = value(m, member);
    List<String> out = new ArrayList<>();
    if (v instanceof List<?> list) {
      for (Object o : list) {
        out.add((String) ((AnnotationValue) o).getValue());
      }
    } else {
      out.add((String) v);
    }
    return out;
  }

  private static Object value(AnnotationMirror m, String member) {
    for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> e :
        m.getElementValues().entrySet()) {
      if (e.getKey().getSimpleName().contentEquals(member)) {
        return e.getValue().getValue();
      }
    }
    for (ExecutableElement method :
        ElementFilter.methodsIn(m.getAnnotationType().asElement().getEnclosedElements())) {
      if (method.getSimpleName().contentEquals(member) && method.getDefaultValue() != null) {
        return method.getDefaultValue().getValue();
      }
    }
    throw new IllegalArgumentException(
        "@" + m.getAnnotationType() + " has no member " + member + " with a value");
  }
}
