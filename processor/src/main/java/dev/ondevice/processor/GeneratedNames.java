package dev.ondevice.processor;

/**
 * Names of generated classes: {@code OnDevice_Net} beside {@code Net}, {@code OnDevice_Outer_Inner}
 * for nested classes.
 */
final class GeneratedNames {
  static final String PREFIX = "OnDevice_";

  private GeneratedNames() {}

  /**
   * The generated class of the model class named {@code model}: top-level, in the model's package.
   */
  static QualifiedName of(QualifiedName model) {
    return QualifiedName.topLevel(
        model.packageName(), PREFIX + String.join("_", model.simpleNames()));
  }
}
