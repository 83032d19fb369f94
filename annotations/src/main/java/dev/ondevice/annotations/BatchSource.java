package dev.ondevice.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Iterating an instance of the type yields batches in host memory: a loop over it is a batch loop.
 * In a batch loop the device analysis reports host synchronisations, and targets used on the CPU
 * while the inputs were moved. On an {@code Iterator} type, a {@code while}, {@code do} or {@code
 * for} loop whose condition calls a method of the iterator ({@code while (it.hasNext())}) is a
 * batch loop, and the iterator's {@code next()} returns a batch in host memory.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface BatchSource {}
