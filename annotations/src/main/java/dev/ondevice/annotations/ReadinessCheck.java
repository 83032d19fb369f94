package dev.ondevice.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The method tells, without waiting, whether its receiver's pending non-blocking copy to the host
 * has arrived ({@code Tensor.isReady()}). The device analysis takes a tensor whose readiness the
 * code has asked about as read on purpose: it does not report reading it before a synchronisation
 * ({@code if (host.isReady()) show(host.item())}).
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface ReadinessCheck {}
