package dev.ondevice.processor;

import java.util.List;
import javax.lang.model.element.TypeElement;

/**
 * A validated model class: what its generated code visits. Everything the code writer needs is read
 * from javac's model here, as plain values, so that rendering the code needs no access to it.
 */
final class ModelDescription {
  private final TypeElement type;
  private final QualifiedName modelClass;
  private final int typeParameters;
  private final QualifiedName generated;
  private final QualifiedName superclassCode;
  private final List<ModelField> fields;
  private final boolean generatedAnnotation;

  ModelDescription(
      TypeElement type,
      QualifiedName modelClass,
      QualifiedName generated,
      QualifiedName superclassCode,
      List<ModelField> fields,
      boolean generatedAnnotation) {
    this.generatedAnnotation = generatedAnnotation;
    this.type = type;
    this.modelClass = modelClass;
    this.typeParameters = type.getTypeParameters().size();
    this.generated = generated;
    this.superclassCode = superclassCode;
    this.fields = List.copyOf(fields);
  }

  /**
   * Whether the generated class may carry {@code @javax.annotation.processing.Generated}: the
   * annotation is visible where the model is (a named module must read {@code java.compiler}).
   */
  boolean generatedAnnotation() {
    return generatedAnnotation;
  }

  /** The model class, the originating element of its generated code: for javac's thread only. */
  TypeElement type() {
    return type;
  }

  /** The name of the model class. */
  QualifiedName modelClass() {
    return modelClass;
  }

  /** How many type parameters the model class has (the generated code gives it wildcards). */
  int typeParameters() {
    return typeParameters;
  }

  /** The name of the generated class. */
  QualifiedName generated() {
    return generated;
  }

  /**
   * The generated code of the model superclass whose fields come first, or null when the superclass
   * is Model.
   */
  QualifiedName superclassCode() {
    return superclassCode;
  }

  List<ModelField> fields() {
    return fields;
  }
}
