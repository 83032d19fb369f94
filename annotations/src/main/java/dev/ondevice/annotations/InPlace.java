package dev.ondevice.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The method changes its receiver in place (and may return it). Its result may be ignored, unlike
 * the result of a pure tensor op, which the device analysis reports when discarded. A model's
 * {@code toDevice} moves the model in place.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface InPlace {
  /**
   * Whether the method copies from a tensor that may be on another device ({@code copyFrom}: a
   * transfer, as PyTorch's {@code copy_}); otherwise its tensor operands must share a device.
   */
  boolean crossDevice() default false;
}
