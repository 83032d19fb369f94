package dev.ondevice.processor;

import com.palantir.javapoet.ClassName;
import java.util.List;
import javax.lang.model.element.TypeElement;

/** A validated model class: what its generated code visits. */
final class ModelDescription {
  private final TypeElement type;
  private final ClassName generated;
  private final ClassName superclassCode;
  private final List<ModelField> fields;

  ModelDescription(TypeElement type, ClassName generated, ClassName superclassCode, List<ModelField> fields) {
    this.type = type;
    this.generated = generated;
    this.superclassCode = superclassCode;
    this.fields = List.copyOf(fields);
  }

  TypeElement type() {
    return type;
  }

  /** The name of the generated class. */
  ClassName generated() {
    return generated;
  }

  /** The generated code of the model superclass whose fields come first, or null when the superclass is Model. */
  ClassName superclassCode() {
    return superclassCode;
  }

  List<ModelField> fields() {
    return fields;
  }
}
