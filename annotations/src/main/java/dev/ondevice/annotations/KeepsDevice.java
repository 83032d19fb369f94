package dev.ondevice.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The method does not move the model passed as this parameter, and keeps no reference to it that
 * could move it later ({@code Checkpoint.restore(file, model, ...)} copies values into the model's
 * tensors where they are). The device analysis keeps what it knows of the model's device across the
 * call; without this annotation, a model that was never moved and is passed to a method is taken to
 * be on an unknown device afterwards, as the method may move it.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.PARAMETER)
public @interface KeepsDevice {}
