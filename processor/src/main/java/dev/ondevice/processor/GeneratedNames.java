package dev.ondevice.processor;

import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;

/** Names of generated classes: {@code OnDevice_Net} beside {@code Net}, {@code OnDevice_Outer_Inner} for nested classes. */
final class GeneratedNames {
  static final String PREFIX = "OnDevice_";

  private GeneratedNames() {}

  static QualifiedName of(TypeElement model, Elements elements) {
    PackageElement pkg = elements.getPackageOf(model);
    StringBuilder flat = new StringBuilder(model.getSimpleName());
    for (Element e = model.getEnclosingElement(); e.getKind() != ElementKind.PACKAGE; e = e.getEnclosingElement()) {
      flat.insert(0, e.getSimpleName() + "_");
    }
    return QualifiedName.topLevel(pkg.getQualifiedName().toString(), PREFIX + flat);
  }
}
