package dev.ondevice.processor;

/** One piece of model state the generated code visits, in declaration order. */
final class ModelField {
  /** How the generated code visits a field. */
  enum Kind {
    PARAMETER,
    BUFFER,
    SUBMODULE,
    SUBMODULE_LIST,
    PARAMETER_LIST,
    SUBMODULE_MAP
  }

  private final String name;
  private final Kind kind;
  private final boolean persistent;
  private final boolean pinnedToCpu;

  ModelField(String name, Kind kind, boolean persistent, boolean pinnedToCpu) {
    this.name = name;
    this.kind = kind;
    this.persistent = persistent;
    this.pinnedToCpu = pinnedToCpu;
  }

  String name() {
    return name;
  }

  Kind kind() {
    return kind;
  }

  /** For buffers: whether the buffer is saved in the state dict. */
  boolean persistent() {
    return persistent;
  }

  /** For buffers: whether the buffer stays on the CPU when the model moves. */
  boolean pinnedToCpu() {
    return pinnedToCpu;
  }
}
