package dev.ondevice.nn;

/** Stub of the runtime's ModelCode, with the real signature. */
public interface ModelCode<M extends Model> {
  void visit(M model, String prefix, StateVisitor visitor);
}
