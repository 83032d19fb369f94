package dev.ondevice.processor;

/**
 * The processor's error messages, kept together so that tests pin them. Each is one statement of
 * what is wrong, then one sentence with the fix, without a trailing period.
 */
final class Messages {
  private Messages() {}

  static final String UNREGISTERED_TENSOR =
      "Tensor field %s is not registered with its model: it would stay on cpu when the model moves;"
          + " annotate it @Buffer, or @OnDevice(\"cpu\") if it must stay there";
  static final String PRIVATE_FIELD =
      "%s field %s must not be private; the generated %s %s it. Make it package-private";
  static final String FINAL_BUFFER =
      "%s field %s must not be final; toDevice replaces it with the moved tensor. Remove final";
  static final String STATIC_BUFFER =
      "%s field %s must not be static; a static tensor is shared by every instance and never moves with the"
          + " model. Remove static";
  static final String STATIC_TENSOR =
      "Static tensor field %s never moves with the model and is shared by every instance; make it an"
          + " instance @Buffer, or annotate it @OnDevice(\"cpu\") if it must stay on the CPU";
  static final String STATIC_STATE =
      "Static %s field %s is not part of any model's state and never moves; make it an instance field";
  static final String BUFFER_NOT_TENSOR =
      "@Buffer field %s must have type Tensor, not %s; only tensors can be buffers. Remove @Buffer or change"
          + " the type";
  static final String BUFFER_ON_PARAMETER =
      "@Buffer field %s is a Parameter, which is already moved and saved; remove @Buffer, or declare it a"
          + " Tensor if it is not trained";
  static final String ON_DEVICE_ON_PARAMETER =
      "@OnDevice cannot pin Parameter field %s; parameters always move with their model. Remove @OnDevice";
  static final String ON_DEVICE_NOT_TENSOR =
      "@OnDevice field %s must have type Tensor, not %s; only tensors have a device. Remove @OnDevice";
  static final String ON_DEVICE_BAD_VALUE =
      "@OnDevice on model field %s must be \"model\" or \"cpu\", not \"%s\": a field pinned to one"
          + " device would break when the model moves; use @OnDevice (the model's device) or @OnDevice(\"cpu\")";
  static final String HIDES_STATE =
      "Field %s hides the field of the same name in model superclass %s: both would be named %s in the"
          + " parameters and the state dict, and one would be lost; rename one of them";
  static final String GENERATED_NAME_CLASH =
      "Model %s would get the same generated class as model %s, %s; rename one of the two classes";
  static final String TENSOR_CONTAINER =
      "Field %s holds tensors or models in a %s, which toDevice does not walk; use a List of models or of"
          + " Parameters, a Map<String, model>, or separate fields";
  static final String MAP_KEY =
      "Map field %s must have String keys, which name its models in the state dict, not %s; use"
          + " Map<String, ...>";
  static final String GENERIC_FIELD =
      "Field %s has type %s, a type variable the generated code cannot classify; bound it by Model,"
          + " Parameter or Tensor, or use a concrete type";
  static final String GENERIC_BUFFER =
      "%s field %s has the type variable %s, which the generated code cannot assign; declare it as Tensor";
  static final String PRIVATE_MODEL_CLASS =
      "Model class %s must not be private; the generated %s cannot reach it. Make it package-private";
  static final String INNER_MODEL_CLASS =
      "Model class %s must be static; an inner class is tied to an instance of %s, which the generated code"
          + " cannot see. Add static";
  static final String ENCLOSED_IN_PRIVATE =
      "Model class %s is nested in private class %s, so the generated %s cannot reach it; make %s"
          + " package-private";
  static final String SUPERCLASS_WITHOUT_CODE =
      "Model class %s extends %s, which has no generated model code (%s is missing); compile %s with the"
          + " ondevice processor on the annotation processor path";
  static final String BUFFER_OUTSIDE_MODEL =
      "@Buffer field %s is in %s, which is not a model; only fields of classes extending"
          + " dev.ondevice.nn.Model are moved and saved. Extend Model or remove @Buffer";
  static final String RUNTIME_MISSING =
      "@Buffer needs the ondevice runtime on the classpath, but dev.ondevice.nn.Model was not found; add the"
          + " dependency dev.ondevice:ondevice-runtime";
  static final String INTERNAL_ERROR =
      "Internal error in the ondevice processor while processing %s: %s; the rest of the compilation goes on."
          + " Please report it with this message";
}
