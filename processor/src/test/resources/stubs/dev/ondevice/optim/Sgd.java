package dev.ondevice.optim;

/** Stub of the runtime's Sgd. */
public class Sgd extends Optimizer {
  public Sgd(java.util.Collection<dev.ondevice.Parameter> parameters, double learningRate) {}
}
