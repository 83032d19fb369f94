package dev.ondevice.samples.stubs;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * What the device analysis reads of a method or constructor: whether it is static, its erased
 * return and parameter types, and the device annotations on it and on each parameter.
 */
record MemberSignature(
    String name,
    boolean isStatic,
    String returnType,
    List<String> parameterTypes,
    List<String> annotations,
    List<List<String>> parameterAnnotations) {

  /** The signature of {@code e}, type names passed through {@code typeNames}. */
  static MemberSignature of(
      ExecutableElement e, Elements elements, Types types, UnaryOperator<String> typeNames) {
    List<String> parameterTypes = new ArrayList<>();
    List<List<String>> parameterAnnotations = new ArrayList<>();
    for (VariableElement p : e.getParameters()) {
      parameterTypes.add(typeName(p.asType(), types, typeNames));
      parameterAnnotations.add(DeviceAnnotations.of(p, elements));
    }
    String name = e.getKind() == ElementKind.CONSTRUCTOR ? "new" : e.getSimpleName().toString();
    return new MemberSignature(
        name,
        e.getModifiers().contains(Modifier.STATIC),
        typeName(e.getReturnType(), types, typeNames),
        parameterTypes,
        DeviceAnnotations.of(e, elements),
        parameterAnnotations);
  }

  private static String typeName(TypeMirror type, Types types, UnaryOperator<String> typeNames) {
    return typeNames.apply(types.erasure(type).toString());
  }

  /**
   * The name ({@code new} for a constructor) and parameter types, as in {@code zeros(long[])}: what
   * finds the member.
   */
  String key() {
    return name + "(" + String.join(", ", parameterTypes) + ")";
  }

  /**
   * How {@code real}, the runtime's member of the same key, differs from this stub's, one line a
   * difference.
   */
  List<String> differencesFrom(MemberSignature real) {
    List<String> out = new ArrayList<>();
    if (isStatic != real.isStatic) {
      out.add(
          "the stub's is "
              + (isStatic ? "" : "not ")
              + "static, the runtime's is "
              + (real.isStatic ? "" : "not"));
    }
    if (!returnType.equals(real.returnType)) {
      out.add("the stub returns " + returnType + ", the runtime " + real.returnType);
    }
    if (!annotations.equals(real.annotations)) {
      out.add("the stub has " + annotations + ", the runtime " + real.annotations);
    }
    for (int i = 0; i < parameterTypes.size(); i++) {
      if (!parameterAnnotations.get(i).equals(real.parameterAnnotations.get(i))) {
        out.add(
            "parameter "
                + i
                + ": the stub has "
                + parameterAnnotations.get(i)
                + ", the runtime "
                + real.parameterAnnotations.get(i));
      }
    }
    return out;
  }
}
