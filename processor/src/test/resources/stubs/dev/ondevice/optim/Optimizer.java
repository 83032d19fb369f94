package dev.ondevice.optim;

/** Stub of the runtime's Optimizer. */
public abstract class Optimizer {
  public void loadStateDict(OptimizerState saved) {}

  public void followParameters() {}

  public void step() {}
}
