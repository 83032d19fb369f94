package dev.ondevice.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The tensor operands of the method (its receiver, if a tensor, and its tensor arguments, lists of
 * tensors included) must be on one device, and its tensor result is on that device: the rule of
 * every tensor op. On a type, it applies to each of its methods that takes or returns tensors and
 * has no other device annotation.
 *
 * <p>The device analysis reports operands on provably different devices, and a discarded result
 * (these ops are pure). A 0-dim CPU operand (see {@link Factory#zeroDim()}, {@link ZeroDim}) is
 * allowed beside any device, as in PyTorch.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface SameDevice {}
