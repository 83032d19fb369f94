package dev.ondevice.nn;

/**
 * The code the ondevice processor generates for each model class ({@code OnDevice_Net} for {@code
 * Net}): it visits the model's parameters, buffers and submodules in declaration order, without
 * reflection. Implemented only by generated code; users call the methods of {@link Model}.
 *
 * @param <M> the model class
 */
public interface ModelCode<M extends Model> {
  /**
   * Hands every parameter, buffer and submodule of {@code model} to {@code visitor}, named with
   * {@code prefix}; each buffer field is replaced by what the visitor returns for it.
   */
  void visit(M model, String prefix, StateVisitor visitor);
}
