package dev.ondevice.samples.stubs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.util.Elements;

/**
 * The annotations of {@code dev.ondevice.annotations} on an element, each written with all its
 * values, defaults included, as in {@code @Move(pins=false, to="cpu")}: what the device analysis
 * reads, compared as text between a stub and the runtime.
 */
final class DeviceAnnotations {
  static final String PACKAGE = "dev.ondevice.annotations";

  private DeviceAnnotations() {}

  /** The device annotations of {@code e}, sorted. */
  static List<String> of(Element e, Elements elements) {
    List<String> out = new ArrayList<>();
    for (AnnotationMirror m : e.getAnnotationMirrors()) {
      TypeElement type = (TypeElement) m.getAnnotationType().asElement();
      if (elements.getPackageOf(type).getQualifiedName().contentEquals(PACKAGE)) {
        out.add(write(m, elements));
      }
    }
    out.sort(null);
    return out;
  }

  private static String write(AnnotationMirror m, Elements elements) {
    Map<String, String> values = new TreeMap<>();
    for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> e :
        elements.getElementValuesWithDefaults(m).entrySet()) {
      values.put(e.getKey().getSimpleName().toString(), write(e.getValue().getValue(), elements));
    }
    StringBuilder sb =
        new StringBuilder("@").append(m.getAnnotationType().asElement().getSimpleName());
    if (!values.isEmpty()) {
      List<String> pairs = new ArrayList<>();
      values.forEach((k, v) -> pairs.add(k + "=" + v));
      sb.append('(').append(String.join(", ", pairs)).append(')');
    }
    return sb.toString();
  }

  private static String write(Object value, Elements elements) {
    if (value instanceof String s) {
      return '"' + s + '"';
    }
    if (value instanceof VariableElement constant) {
      return constant.getSimpleName().toString();
    }
    if (value instanceof AnnotationMirror nested) {
      return write(nested, elements);
    }
    if (value instanceof List<?> list) {
      List<String> items = new ArrayList<>();
      for (Object item : list) {
        items.add(write(((AnnotationValue) item).getValue(), elements));
      }
      return "{" + String.join(", ", items) + "}";
    }
    return String.valueOf(value);
  }
}
