package dev.ondevice.nn;

/**
 * Finds the generated code of a model class: {@code OnDevice_Net} beside {@code Net}, {@code
 * OnDevice_Outer_Inner} for a nested class. Looked up once per class.
 */
final class ModelCodes {
  static final String PREFIX = "OnDevice_";

  private static final ClassValue<ModelCode<?>> CODES =
      new ClassValue<>() {
        @Override
        protected ModelCode<?> computeValue(Class<?> type) {
          return load(type);
        }
      };

  private ModelCodes() {}

  static ModelCode<?> of(Class<?> modelClass) {
    return CODES.get(modelClass);
  }

  /** The name of the generated class for {@code type}. */
  static String generatedName(Class<?> type) {
    String pkg = type.getPackageName();
    String flat = type.getName().substring(pkg.isEmpty() ? 0 : pkg.length() + 1).replace('$', '_');
    return (pkg.isEmpty() ? "" : pkg + ".") + PREFIX + flat;
  }

  private static ModelCode<?> load(Class<?> type) {
    if (type.isAnonymousClass() || type.isLocalClass()) {
      throw new IllegalStateException(
          "Model class "
              + type.getName()
              + " is "
              + (type.isAnonymousClass() ? "anonymous" : "local")
              + "; the ondevice processor generates code only for named top-level or"
              + " static nested model classes. Declare it as one");
    }
    String name = generatedName(type);
    Class<?> generated;
    try {
      generated = Class.forName(name, true, type.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          "Model class "
              + type.getName()
              + " has no generated code ("
              + name
              + " is missing): it was compiled without the ondevice annotation processor. Put"
              + " dev.ondevice:ondevice-processor on the annotation processor path (Maven: <annotationProcessorPaths>"
              + " of maven-compiler-plugin; Gradle: annotationProcessor) and recompile; see docs/processor.md",
          e);
    }
    Module runtime = ModelCodes.class.getModule();
    Module models = generated.getModule();
    if (models.isNamed() && !models.isExported(generated.getPackageName(), runtime)) {
      throw new IllegalStateException(
          "The generated code "
              + name
              + " of model class "
              + type.getName()
              + " is in package "
              + generated.getPackageName()
              + ", which module "
              + models.getName()
              + " does not export to "
              + (runtime.isNamed() ? "module " + runtime.getName() : "the ondevice runtime")
              + "; add 'exports "
              + generated.getPackageName()
              + (runtime.isNamed() ? " to " + runtime.getName() : "")
              + ";' (or 'opens') to its module-info.java");
    }
    try {
      return (ModelCode<?>) generated.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new IllegalStateException(
          "The generated code "
              + name
              + " of model class "
              + type.getName()
              + " could not be instantiated; recompile the model with the ondevice processor of this runtime's"
              + " version",
          e);
    }
  }
}
