package dev.ondevice.nn;

/** Stub of the runtime's Model. */
public abstract class Model {}
