package dev.ondevice.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Registers a tensor field of a model as a buffer: state that is not trained but moves with the
 * model, as PyTorch's {@code register_buffer} (BatchNorm's running mean and variance). {@code
 * model.toDevice(device)} replaces the field with the tensor moved to {@code device}; persistent
 * buffers are also saved and loaded with the state dict.
 *
 * <pre>{@code
 * class Normalizer extends Model {
 *   @Buffer Tensor mean = Tensor.zeros(784, Device.cpu());
 *   @Buffer(persistent = false) Tensor scratch = Tensor.zeros(784, Device.cpu());
 * }
 * }</pre>
 *
 * <p>The processor rejects, each with a compile error on the field:
 *
 * <ul>
 *   <li>a {@code @Buffer} field whose type is not {@code dev.ondevice.Tensor};
 *   <li>a {@code @Buffer} on a {@code Parameter} field (parameters are state already);
 *   <li>a private field (the generated code reads and writes it) or a final one (moving replaces
 *       it);
 *   <li>a static field (it would be shared by every instance and never move);
 *   <li>a {@code @Buffer} field in a class that is not a model (does not extend {@code
 *       dev.ondevice.nn.Model}).
 * </ul>
 *
 * <p>Combined with {@code @OnDevice("cpu")} the buffer is saved in the state dict but stays on the
 * CPU when the model moves.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.FIELD)
public @interface Buffer {
  /**
   * Whether the buffer is part of the state dict; {@code false} as PyTorch's {@code
   * register_buffer(..., persistent=False)}: moved with the model, never saved.
   */
  boolean persistent() default true;
}
