package dev.ondevice.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * States where a tensor lives: on the device of the model it belongs to ({@value #MODEL}, the
 * default) or on a fixed device ({@code "cpu"}).
 *
 * <p><b>On a model field</b> it decides what {@code model.toDevice(device)} does with a tensor that
 * is neither a parameter nor a {@link Buffer}:
 *
 * <ul>
 *   <li>{@code @OnDevice} (the model's device): the tensor moves with the model and is not saved in
 *       the state dict, like a non-persistent buffer;
 *   <li>{@code @OnDevice("cpu")}: the tensor deliberately stays on the host (a lookup table the
 *       model reads on the CPU); the move leaves it alone. With {@code @Buffer} it is also saved.
 * </ul>
 *
 * <p>The processor rejects, each with a compile error on the field: any other value on a model
 * field than the model's device, {@code "cpu"} or {@code "cpu:0"} (a field pinned to one GPU would
 * break when the model moves), {@code @OnDevice} on a {@code Parameter} (parameters always move
 * with their model), on a field whose type is not a tensor, and a model-device {@code @OnDevice}
 * field that is private, final or static (the generated code replaces it when the model moves). A
 * {@code @OnDevice("cpu")} field without {@link Buffer} is left alone by the generated code, so it
 * may be private or final.
 *
 * <p><b>On method parameters and return values</b> it is a contract at the method boundary, which
 * the device analysis checks at call sites (of methods and of constructors: {@code new
 * TensorDataset(x.to(device))} is reported) and at returns: {@code "cpu"}, {@code "cuda"}, {@code
 * "cuda:N"}, or {@value #MODEL} for the device of the model whose method it is. On a method's
 * return it also holds for the methods that override it (marked {@code @Override}), which need not
 * repeat it; a model's method declared {@code @OnDevice("cpu")} may return a tensor it creates
 * without a device.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD, ElementType.LOCAL_VARIABLE})
public @interface OnDevice {
  /** The device of the model the tensor belongs to. */
  String MODEL = "model";

  /** {@value #MODEL}, or a device string in PyTorch's grammar such as {@code "cpu"}. */
  String value() default MODEL;
}
