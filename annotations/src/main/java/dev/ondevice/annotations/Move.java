package dev.ondevice.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The method returns its receiver on another device, as a new tensor (the receiver does not
 * change): to its {@code Device} argument, or to the device named by {@link #to()}.
 *
 * <p>The device analysis reports a move whose result is discarded ({@code x.to(device);}), a
 * non-blocking copy (a {@code boolean} parameter marked {@link NonBlocking}) from memory that is
 * not pinned, and the host reading the result of a non-blocking copy to the CPU before a
 * synchronisation.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface Move {
  /**
   * The destination when the method has no {@code Device} parameter: {@code "cpu"} or {@code
   * "cuda"}.
   */
  String to() default "";

  /** Whether the result is in pinned (page-locked) host memory. */
  boolean pins() default false;
}
