package dev.ondevice;

import dev.ondevice.internal.backend.Strided;
import java.util.Arrays;

/**
 * The fused in-place updates behind {@link dev.ondevice.optim.Sgd}, {@link dev.ondevice.optim.Adam}
 * and {@link dev.ondevice.optim.AdamW}, for custom optimizers too: one pass over a parameter, its
 * gradient and its state on the parameter's device, with PyTorch's arithmetic. State below the
 * smallest normal number is flushed to zero, so that a decaying momentum never reaches the
 * subnormal range, where arithmetic is a hundred times slower.
 *
 * <p>Like every in-place op on a parameter, an update runs inside {@link Autograd#noGrad()}. The
 * gradient and the state must be on the parameter's device and have its shape and dtype.
 */
public final class OptimizerSteps {
  private OptimizerSteps() {}

  /**
   * The hyper-parameters of one fused SGD update, with PyTorch's names and meaning ({@code
   * torch.optim.SGD}): {@code d = grad + weightDecay·param}; with momentum, {@code buf = d} on the
   * first step and {@code buf = momentum·buf + (1 − dampening)·d} after it, then {@code d = buf},
   * or {@code d + momentum·buf} with Nesterov; finally {@code param −= lr·d}.
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

  /**
   * The hyper-parameters of one fused Adam or AdamW update, as PyTorch's single-tensor {@code
   * torch.optim.Adam} and {@code AdamW} compute it: AdamW first scales the parameter by {@code 1 −
   * lr·weightDecay}, Adam adds {@code weightDecay·param} to the gradient; then {@code m = β1·m + (1
   * − β1)·g}, {@code v = β2·v + (1 − β2)·g²}, with AMSGrad {@code vmax = max(vmax, v)}, and {@code
   * param −= lr / (1 − β1^step) · m / (√v / √(1 − β2^step) + eps)}.
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
  public record AdamStep(
      double lr,
      double beta1,
      double beta2,
      double eps,
      double weightDecay,
      boolean decoupled,
      boolean amsgrad,
      long step) {}

  /**
   * One SGD update of {@code param} and, with momentum, of {@code momentumBuffer} (null when {@code
   * step.momentum()} is 0).
   *
   * @throws DeviceMismatchException when an operand is on another device than the parameter
   * @throws IllegalArgumentException when shapes or dtypes differ, or a buffer is missing
   * @throws IllegalStateException outside {@link Autograd#noGrad()}
   */
  public static void sgd(Tensor param, Tensor grad, Tensor momentumBuffer, SgdStep step) {
    String op = "OptimizerSteps.sgd";
    if ((step.momentum() != 0) != (momentumBuffer != null)) {
      throw new IllegalArgumentException(
          op
              + ": a momentum buffer is needed exactly when the momentum is not 0"
              + " (momentum "
              + step.momentum()
              + ")");
    }
    checkParam(op, param);
    check(op, param, "grad", grad);
    if (momentumBuffer != null) {
      checkState(op, param, "momentumBuffer", momentumBuffer);
    }
    checkDistinct(
        op, new String[] {"param", "grad", "momentumBuffer"}, param, grad, momentumBuffer);
    param
        .data
        .storage()
        .backend()
        .sgdStep(
            param.data,
            grad.data,
            data(momentumBuffer),
            new dev.ondevice.internal.backend.SgdStep(
                step.lr(),
                step.momentum(),
                step.dampening(),
                step.weightDecay(),
                step.nesterov(),
                step.firstStep()));
    bump(param, momentumBuffer);
  }

  /**
   * One Adam or AdamW update of {@code param} and its moments; {@code maxExpAvgSq} is null unless
   * {@code step.amsgrad()}.
   *
   * @throws DeviceMismatchException when an operand is on another device than the parameter
   * @throws IllegalArgumentException when shapes or dtypes differ, or the AMSGrad state is missing
   * @throws IllegalStateException outside {@link Autograd#noGrad()}
   */
  public static void adam(
      Tensor param,
      Tensor grad,
      Tensor expAvg,
      Tensor expAvgSq,
      Tensor maxExpAvgSq,
      AdamStep step) {
    String op = "OptimizerSteps.adam";
    if (step.amsgrad() != (maxExpAvgSq != null)) {
      throw new IllegalArgumentException(
          op + ": maxExpAvgSq is needed exactly with AMSGrad (amsgrad " + step.amsgrad() + ")");
    }
    if (step.step() < 1) {
      throw new IllegalArgumentException(op + ": the step count starts at 1, got " + step.step());
    }
    checkParam(op, param);
    check(op, param, "grad", grad);
    checkState(op, param, "expAvg", expAvg);
    checkState(op, param, "expAvgSq", expAvgSq);
    if (maxExpAvgSq != null) {
      checkState(op, param, "maxExpAvgSq", maxExpAvgSq);
    }
    checkDistinct(
        op,
        new String[] {"param", "grad", "expAvg", "expAvgSq", "maxExpAvgSq"},
        param,
        grad,
        expAvg,
        expAvgSq,
        maxExpAvgSq);
    param
        .data
        .storage()
        .backend()
        .adamStep(
            param.data,
            grad.data,
            expAvg.data,
            expAvgSq.data,
            data(maxExpAvgSq),
            new dev.ondevice.internal.backend.AdamStep(
                step.lr(),
                step.beta1(),
                step.beta2(),
                step.eps(),
                step.weightDecay(),
                step.decoupled(),
                step.amsgrad(),
                step.step()));
    bump(param, expAvg, expAvgSq, maxExpAvgSq);
  }

  private static Strided data(Tensor t) {
    return t == null ? null : t.data;
  }

  /** Checks what the update asks of the parameter itself, once per update. */
  private static void checkParam(String op, Tensor param) {
    if (Autograd.isGradEnabled()) {
      throw new IllegalStateException(
          op
              + ": parameters are updated in place, which autograd does not record;"
              + " run the update inside Autograd.noGrad()");
    }
    if (!param.dtype().isFloatingPoint()) {
      throw new IllegalArgumentException(
          op + ": the parameter must be float32 or float64, got " + param.dtype());
    }
    checkWritable(op, "param", param);
  }

  /** Checks that {@code other} is on the parameter's device, with its shape and dtype. */
  private static void check(String op, Tensor param, String name, Tensor other) {
    if (!other.device().equals(param.device())) {
      throw new DeviceMismatchException(param.device(), other.device(), name, op);
    }
    if (!Arrays.equals(other.data.sizes(), param.data.sizes()) || other.dtype() != param.dtype()) {
      throw new IllegalArgumentException(
          op
              + ": "
              + name
              + " must have the parameter's shape and dtype, "
              + param.shape()
              + " "
              + param.dtype()
              + ", got "
              + other.shape()
              + " "
              + other.dtype());
    }
  }

  /** Checks a state tensor, which is written like the parameter. */
  private static void checkState(String op, Tensor param, String name, Tensor state) {
    check(op, param, name, state);
    checkWritable(op, name, state);
  }

  private static void checkWritable(String op, String name, Tensor t) {
    int[] sizes = t.data.sizes();
    int[] strides = t.data.strides();
    for (int i = 0; i < sizes.length; i++) {
      if (sizes[i] > 1 && strides[i] == 0) {
        throw new IllegalArgumentException(
            op
                + ": "
                + name
                + " is an expanded view whose elements share memory;"
                + " it cannot be updated in place. Call clone() first");
      }
    }
  }

  /** Fails when two operands share memory: each is read and written element by element. */
  private static void checkDistinct(String op, String[] names, Tensor... operands) {
    for (int i = 0; i < operands.length; i++) {
      for (int j = i + 1; j < operands.length; j++) {
        if (operands[i] != null
            && operands[j] != null
            && operands[i].data.storage() == operands[j].data.storage()) {
          throw new IllegalArgumentException(
              op
                  + ": "
                  + names[i]
                  + " and "
                  + names[j]
                  + " share memory; each"
                  + " needs its own tensor (clone() one of them)");
        }
      }
    }
  }

  private static void bump(Tensor... written) {
    for (Tensor t : written) {
      if (t != null) {
        t.data.storage().bumpVersion();
      }
    }
  }
}
