package dev.ondevice.processor;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.WildcardTypeName;
import java.util.List;
import javax.lang.model.element.TypeElement;

/**
 * A validated model class: what its generated code visits. Everything the code writer needs is
 * read from javac's model here, so that rendering the code needs no access to it.
 */
final class ModelDescription {
  private final TypeElement type;
  private final ClassName modelClass;
  private final TypeName modelType;
  private final ClassName generated;
  private final ClassName superclassCode;
  private final List<ModelField> fields;

  ModelDescription(TypeElement type, ClassName generated, ClassName superclassCode, List<ModelField> fields) {
    this.type = type;
    this.modelClass = ClassName.get(type);
    this.modelType = modelType(modelClass, type.getTypeParameters().size());
    this.generated = generated;
    this.superclassCode = superclassCode;
    this.fields = List.copyOf(fields);
  }

  /** The model class, the originating element of its generated code. */
  TypeElement type() {
    return type;
  }

  /** The name of the model class. */
  ClassName modelClass() {
    return modelClass;
  }

  /** The model class as the generated code names it: with wildcards for its type parameters. */
  TypeName modelType() {
    return modelType;
  }

  private static TypeName modelType(ClassName raw, int params) {
    if (params == 0) {
      return raw;
    }
    TypeName[] wildcards = new TypeName[params];
    for (int i = 0; i < params; i++) {
      wildcards[i] = WildcardTypeName.subtypeOf(Object.class);
    }
    return ParameterizedTypeName.get(raw, wildcards);
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
