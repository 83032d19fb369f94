package dev.ondevice.processor;

import com.palantir.javapoet.ClassName;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;

/**
 * The name of a class as plain strings: read from javac's model on javac's thread, and made a
 * JavaPoet {@link ClassName} only where code is rendered. JavaPoet checks every name part when it
 * builds a name, which is most of what naming a class costs, and that work then happens off javac's
 * thread with the rest of the rendering.
 *
 * @param packageName the package, empty for the unnamed package
 * @param simpleNames the simple names from the top-level class down to the class itself
 */
record QualifiedName(String packageName, List<String> simpleNames) {
  QualifiedName {
    simpleNames = List.copyOf(simpleNames);
  }

  /** A top-level class. */
  static QualifiedName topLevel(String packageName, String simpleName) {
    return new QualifiedName(packageName, List.of(simpleName));
  }

  /** The name of {@code type}, nested classes included. */
  static QualifiedName of(TypeElement type, Elements elements) {
    List<String> names = new ArrayList<>();
    for (Element e = type; e.getKind() != ElementKind.PACKAGE; e = e.getEnclosingElement()) {
      names.add(0, e.getSimpleName().toString());
    }
    return new QualifiedName(elements.getPackageOf(type).getQualifiedName().toString(), names);
  }

  /** The class's own simple name. */
  String simpleName() {
    return simpleNames.get(simpleNames.size() - 1);
  }

  /** The name in source form, {@code pkg.Outer.Inner}. */
  String canonicalName() {
    String nested = String.join(".", simpleNames);
    return packageName.isEmpty() ? nested : packageName + "." + nested;
  }

  /** The JavaPoet name. */
  ClassName className() {
    return ClassName.get(
        packageName,
        simpleNames.get(0),
        simpleNames.subList(1, simpleNames.size()).toArray(new String[0]));
  }
}
