package dev.ondevice.backend;

/**
 * The hyper-parameters of one fused Adam or AdamW update, as PyTorch's single-tensor {@code
 * torch.optim.Adam} and {@code AdamW} compute it: AdamW first scales the parameter by {@code 1 −
 * lr·weightDecay}, Adam adds {@code weightDecay·param} to the gradient; then {@code m = β1·m + (1 −
 * β1)·g}, {@code v = β2·v + (1 − β2)·g²}, with AMSGrad {@code vmax = max(vmax, v)}, and {@code param
 * −= lr / (1 − β1^step) · m / (√v / √(1 − β2^step) + eps)}.
 *
 * @param lr the learning rate
 * @param beta1 the decay of the first moment
 * @param beta2 the decay of the second moment
 * @param eps the term added to the denominator
 * @param weightDecay the weight decay, L2 (Adam) or decoupled (AdamW)
 * @param decoupled whether the weight decay is AdamW's
 * @param amsgrad whether the maximum of the second moments is kept and used
 * @param step this parameter's step count, from 1
 */
public record AdamStep(double lr, double beta1, double beta2, double eps, double weightDecay, boolean decoupled,
    boolean amsgrad, long step) {}
