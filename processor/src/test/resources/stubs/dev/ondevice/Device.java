package dev.ondevice;

/** Stub of the runtime's Device. */
public final class Device {}
