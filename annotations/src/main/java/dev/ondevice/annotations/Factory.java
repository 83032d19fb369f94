package dev.ondevice.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The method creates a new tensor. It lands on the device given by its {@code Device} argument;
 * without one, on the device of its tensor argument (the {@code *Like} factories); without either,
 * on the CPU, PyTorch's default.
 *
 * <p>The device analysis uses it to know where tensors come from: a factory without a device inside
 * a model's method is reported when its result meets the model's state (the default device in
 * forward), and a factory without a device whose result is moved right away is reported as
 * create-then-move. Put it on your own factories to get the same checks.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR})
public @interface Factory {
  /** Whether the tensor is 0-dim, a scalar that PyTorch lets meet tensors on any device. */
  boolean zeroDim() default false;

  /**
   * Whether the tensor holds data the caller passes in host memory (Java arrays): creating it on a
   * device copies anyway, so creating it on the CPU and moving it is no waste.
   */
  boolean fromHostData() default false;
}
