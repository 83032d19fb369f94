package dev.ondevice.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The method's tensor result is 0-dim (a full reduction such as {@code sum()}); on a method that
 * returns a shape, the shape has no dimensions ({@code Shape.scalar()}), and a factory given it
 * creates a 0-dim tensor. On the varargs parameter of a method's dimensions ({@code
 * Tensor.zeros(long...)}, {@code Shape.of(long...)}), the result is 0-dim when a call passes no
 * dimensions: {@code Tensor.zeros()}, {@code Shape.of()}. A 0-dim tensor on the CPU may meet
 * tensors on any device, as in PyTorch, so the device analysis does not report it as a mixed-device
 * operand.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.METHOD, ElementType.PARAMETER})
public @interface ZeroDim {}
