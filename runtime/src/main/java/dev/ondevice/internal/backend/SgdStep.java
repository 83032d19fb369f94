package dev.ondevice.internal.backend;

/**
 * The hyper-parameters of one fused SGD update, with PyTorch's names and meaning ({@code
 * torch.optim.SGD}): {@code d = grad + weightDecay·param}; with momentum, {@code buf = d} on the
 * first step and {@code buf = momentum·buf + (1 − dampening)·d} after it, then {@code d = buf}, or
 * {@code d + momentum·buf} with Nesterov; finally {@code param −= lr·d}.
 *
 * @param lr the learning rate
 * @param momentum the momentum factor, 0 for none (then there is no buffer)
 * @param dampening the dampening of the momentum
 * @param weightDecay the L2 penalty added to the gradient
 * @param nesterov whether the momentum is Nesterov's
 * @param firstStep whether the momentum buffer is written for the first time (its contents are
 *     ignored)
 */
public record SgdStep(
    double lr,
    double momentum,
    double dampening,
    double weightDecay,
    boolean nesterov,
    boolean firstStep) {}
