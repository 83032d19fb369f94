package dev.ondevice.optim;

/** Stub of the runtime's OptimizerState: a saved optimizer state. */
public final class OptimizerState {}
