package dev.ondevice.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The method makes the host wait for a device: for its receiver's device ({@code item()}, {@code
 * toFloatArray()}, {@code toString()}, {@code cpu()}), or for every device when static ({@code
 * Cuda.synchronize()}). Such calls are reported inside a batch loop (a loop over a {@link
 * BatchSource}) or a {@link Step} method: accumulate on the device and read once per epoch.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface HostSync {}
