package dev.ondevice.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * How a method that returns a {@code Device} chooses it; the device analysis follows device values
 * through it.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface ReturnsDevice {
  /** The kinds of device a method returns. */
  enum Source {
    /** Always the CPU. */
    CPU,
    /** The current CUDA device. */
    CURRENT_CUDA,
    /** {@code cuda:N} for its {@code int} argument N. */
    CUDA_INDEX,
    /** The device its {@code String} argument names. */
    PARSED,
    /** Chosen at run time (CUDA if available, else the CPU): device-agnostic code. */
    RUNTIME,
    /** The device of its receiver (a tensor or a model). */
    OF_RECEIVER
  }

  /** How the device is chosen. */
  Source value();
}
