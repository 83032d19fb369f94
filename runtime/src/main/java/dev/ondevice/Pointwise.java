package dev.ondevice;

import dev.ondevice.internal.backend.Backend;
import dev.ondevice.internal.backend.BinaryOp;
import dev.ondevice.internal.backend.UnaryOp;
import java.util.Locale;

/** Elementwise ops, with broadcasting, type promotion, the device rules and their gradients. */
final class Pointwise {
  private Pointwise() {}

  // ---------------------------------------------------------------- binary

  static Tensor binary(BinaryOp op, Tensor a, Tensor b) {
    String name = op.opName();
    Checks.sameDevice(name, a, "other", b);
    if (!a.device().equals(b.device())) {
      if (Checks.isCpuScalar(b)) {
        b = liftScalar(b, a.device());
      } else {
        a = liftScalar(a, b.device());
      }
    }
    DType compute = computeType(op, TypePromotion.of(a, b), name);
    int[] sizes = Checks.broadcast(name, a.data.sizes(), "self", b.data.sizes(), "other");
    Tensor ac = a.to(compute);
    Tensor bc = b.to(compute);
    Tensor out = Creation.empty(sizes, op.isComparison() ? DType.BOOL : compute, a.device());
    backend(a)
        .binary(op, Views.expandData(ac.data, sizes), Views.expandData(bc.data, sizes), out.data);
    if (op.isComparison() || !compute.isFloatingPoint()) {
      return out;
    }
    return Node.record(
        name,
        out,
        new Tensor[] {ac, bc},
        savedBy(op, ac, bc, out),
        (g, needs) -> binaryGrad(op, g, ac, bc, out, needs));
  }

  /** The tensors the gradient of {@code a op b} reads, which must not change before backward. */
  private static Tensor[] savedBy(BinaryOp op, Tensor a, Tensor b, Tensor out) {
    return switch (op) {
      case ADD, SUB -> new Tensor[0];
      case MUL -> Node.savedForProduct(a, b);
      // a's gradient reads b; b's reads both.
      case DIV -> b.requiresGrad() ? new Tensor[] {a, b} : new Tensor[] {b};
      case POW -> new Tensor[] {a, b, out};
      default -> new Tensor[] {a, b};
    };
  }

  /**
   * A 0-dim CPU tensor used beside a tensor on another device: its value is written on that device
   * (no transfer); its gradient goes back to the CPU.
   */
  static Tensor liftScalar(Tensor scalar, Device device) {
    Tensor lifted = Creation.scalarOn(Movement.scalarValue(scalar), scalar.dtype(), device);
    Device home = scalar.device();
    return Node.record(
        "scalar", lifted, new Tensor[] {scalar}, (g, needs) -> new Tensor[] {g.to(home)});
  }

  private static DType computeType(BinaryOp op, DType promoted, String name) {
    if (op.isLogical()) {
      return DType.BOOL;
    }
    if (promoted == DType.BOOL && !op.isComparison()) {
      throw new IllegalArgumentException(
          name
              + ": arithmetic on two bool operands is not supported;"
              + " convert one with to(DType.INT64), or use logicalOr/logicalAnd");
    }
    if (op == BinaryOp.DIV && !promoted.isFloatingPoint()) {
      return DType.FLOAT32;
    }
    return promoted;
  }

  private static Tensor[] binaryGrad(
      BinaryOp op, Tensor g, Tensor a, Tensor b, Tensor out, boolean[] needs) {
    Tensor ga = null;
    Tensor gb = null;
    switch (op) {
      case ADD -> {
        ga = g;
        gb = g;
      }
      case SUB -> {
        ga = g;
        gb = needs[1] ? g.neg() : null;
      }
      case MUL -> {
        ga = needs[0] ? g.mul(b) : null;
        gb = needs[1] ? g.mul(a) : null;
      }
      case DIV -> {
        ga = needs[0] ? g.div(b) : null;
        gb = needs[1] ? g.mul(a).div(b).div(b).neg() : null;
      }
      case POW -> {
        // PyTorch's rules: no gradient through a zero exponent (x^0 is 1, even at x = 0), and none
        // to the exponent where the base is 0 and the exponent not negative.
        ga = needs[0] ? maskedZero(g.mul(b).mul(a.pow(b.sub(1L))), b.eq(0.0)) : null;
        gb = needs[1] ? maskedZero(g.mul(out).mul(a.log()), a.eq(0.0).logicalAnd(b.ge(0.0))) : null;
      }
      case MAXIMUM, MINIMUM -> {
        // PyTorch's rule: half to each on a tie, nothing to the operand that loses, the whole to
        // both
        // where a NaN makes neither win.
        Tensor aLoses = op == BinaryOp.MAXIMUM ? a.lt(b) : a.gt(b);
        Tensor bLoses = op == BinaryOp.MAXIMUM ? a.gt(b) : a.lt(b);
        Tensor shared = Tensor.where(a.eq(b), g.mul(0.5), g);
        ga = needs[0] ? maskedZero(shared, aLoses) : null;
        gb = needs[1] ? maskedZero(shared, bLoses) : null;
      }
      default -> throw new IllegalStateException(op + " has no gradient");
    }
    return new Tensor[] {
      needs[0] ? Views.sumToShape(ga, a.data.sizes()) : null,
      needs[1] ? Views.sumToShape(gb, b.data.sizes()) : null
    };
  }

  private static Tensor maskedZero(Tensor t, Tensor mask) {
    return Tensor.where(mask, Creation.scalarOn(0, t.dtype(), t.device()), t);
  }

  // ---------------------------------------------------------------- with a Java scalar

  static Tensor scalar(BinaryOp op, Tensor a, double s, boolean scalarFirst, boolean integral) {
    String name = op.opName();
    // Comparing an integer tensor with a whole number is exact: Java widens int literals to double.
    boolean exact = integral || (op.isComparison() && isLong(s));
    DType compute =
        op.isLogical() ? DType.BOOL : computeType(op, TypePromotion.withScalar(a, exact), name);
    Tensor ac = a.to(compute);
    Tensor out =
        Creation.empty(
            a.data.sizes().clone(), op.isComparison() ? DType.BOOL : compute, a.device());
    backend(a).binaryScalar(op, ac.data, s, scalarFirst, out.data);
    if (op.isComparison() || !compute.isFloatingPoint()) {
      return out;
    }
    return Node.record(
        name,
        out,
        new Tensor[] {ac},
        savedBy(op, ac, s, scalarFirst, out),
        (g, needs) -> new Tensor[] {scalarGrad(op, g, ac, s, scalarFirst, out)});
  }

  /** The tensors the gradient of {@code a op s} (or {@code s op a}) reads. */
  private static Tensor[] savedBy(
      BinaryOp op, Tensor a, double s, boolean scalarFirst, Tensor out) {
    return switch (op) {
      case ADD, SUB, MUL -> new Tensor[0];
      case DIV -> scalarFirst ? new Tensor[] {a, out} : new Tensor[0];
      case POW ->
          scalarFirst
              ? (s == 0 ? new Tensor[] {a, out} : new Tensor[] {out})
              : s == 0 ? new Tensor[0] : new Tensor[] {a};
      default -> new Tensor[] {a};
    };
  }

  private static Tensor scalarGrad(
      BinaryOp op, Tensor g, Tensor a, double s, boolean scalarFirst, Tensor out) {
    return switch (op) {
      case ADD -> g;
      case SUB -> scalarFirst ? g.neg() : g;
      case MUL -> g.mul(s);
      case DIV -> scalarFirst ? g.mul(out).div(a).neg() : g.div(s);
      case POW -> scalarPowGrad(g, a, s, scalarFirst, out);
      case MAXIMUM, MINIMUM -> {
        Tensor loses = op == BinaryOp.MAXIMUM ? a.lt(s) : a.gt(s);
        yield maskedZero(Tensor.where(a.eq(s), g.mul(0.5), g), loses);
      }
      default -> throw new IllegalStateException(op + " has no gradient");
    };
  }

  /**
   * The gradient of {@code a^s} or {@code s^a}, with PyTorch's zeros at a zero exponent or base.
   */
  private static Tensor scalarPowGrad(
      Tensor g, Tensor a, double s, boolean scalarFirst, Tensor out) {
    if (!scalarFirst) {
      return s == 0 ? Tensor.zerosLike(g) : g.mul(a.pow(s - 1)).mul(s);
    }
    Tensor grad = g.mul(out).mul(Math.log(s));
    return s == 0 ? maskedZero(grad, a.ge(0.0)) : grad;
  }

  /**
   * Whether {@code s} is a whole number that an int64 holds exactly: it then keeps integer tensors
   * integer.
   */
  private static boolean isLong(double s) {
    return s == Math.rint(s) && Math.abs(s) < 0x1p63;
  }

  static Tensor clamp(Tensor a, double min, double max) {
    if (!Double.isNaN(min) && !Double.isNaN(max) && min > max) {
      throw new IllegalArgumentException(
          "clamp: min (" + min + ") must not exceed max (" + max + ")");
    }
    Tensor out;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      out = a;
      // The bounds take part in type promotion, as in PyTorch: an integer tensor clamped to a
      // fractional bound gives a float32 result.
      if (!Double.isNaN(min)) {
        out = scalar(BinaryOp.MAXIMUM, out, min, false, isLong(min));
      }
      if (!Double.isNaN(max)) {
        out = scalar(BinaryOp.MINIMUM, out, max, false, isLong(max));
      }
      if (out == a) {
        out = a.clone();
      }
    }
    if (!a.dtype().isFloatingPoint()) {
      return out;
    }
    return Node.record(
        "clamp",
        out,
        new Tensor[] {a},
        new Tensor[] {a},
        (g, needs) -> {
          Tensor inside =
              Double.isNaN(min)
                  ? a.le(max)
                  : Double.isNaN(max) ? a.ge(min) : a.ge(min).logicalAnd(a.le(max));
          return new Tensor[] {
            Tensor.where(inside, g, Creation.scalarOn(0, g.dtype(), g.device()))
          };
        });
  }

  // ---------------------------------------------------------------- unary

  static Tensor unary(UnaryOp op, Tensor a) {
    String name = op.name().toLowerCase(Locale.ROOT);
    if (a.dtype() == DType.BOOL) {
      throw new IllegalArgumentException(
          name + ": not defined on bool tensors; convert with to(DType.FLOAT32)");
    }
    Tensor ac = op.acceptsIntegers() ? a : a.to(Creation.floatLike(a));
    Tensor out = Creation.empty(ac.data.sizes().clone(), ac.dtype(), ac.device());
    backend(ac).unary(op, ac.data, out.data);
    if (!out.dtype().isFloatingPoint()) {
      return out;
    }
    return Node.record(
        name,
        out,
        new Tensor[] {ac},
        savedBy(op, ac, out),
        (g, needs) -> new Tensor[] {unaryGrad(op, g, ac, out)});
  }

  /** The tensors the gradient of {@code op(a)} reads: the input, the output, or neither. */
  private static Tensor[] savedBy(UnaryOp op, Tensor a, Tensor out) {
    return switch (op) {
      case NEG, SIGN, FLOOR, CEIL, ROUND -> new Tensor[0];
      case RELU, EXP, EXPM1, SQRT, RSQRT, RECIPROCAL, TANH, SIGMOID -> new Tensor[] {out};
      default -> new Tensor[] {a};
    };
  }

  private static Tensor unaryGrad(UnaryOp op, Tensor g, Tensor a, Tensor out) {
    return switch (op) {
      case NEG -> g.neg();
      case ABS -> g.mul(a.sign());
      case SIGN, FLOOR, CEIL, ROUND -> Tensor.zerosLike(g);
      case SQUARE -> g.mul(a).mul(2.0);
      case RELU -> reluBackward(g, out);
      case EXP -> g.mul(out);
      case LOG -> g.div(a);
      case LOG1P -> g.div(a.add(1.0));
      case EXPM1 -> g.mul(out.add(1.0));
      case SQRT -> g.div(out).mul(0.5);
      case RSQRT -> g.mul(out.pow(3.0)).mul(-0.5);
      case RECIPROCAL -> g.mul(out.square()).neg();
      case SIN -> g.mul(a.cos());
      case COS -> g.mul(a.sin()).neg();
      case TANH -> g.mul(out.square().rsub(1.0));
      case SIGMOID -> g.mul(out).mul(out.rsub(1.0));
      case ERF -> g.mul(a.square().neg().exp().mul(2 / Math.sqrt(Math.PI)));
      default -> throw new IllegalStateException(op + " has no gradient");
    };
  }

  /** The gradient of relu in one pass: {@code g} where the output is positive, else 0. */
  static Tensor reluBackward(Tensor g, Tensor out) {
    Tensor gc = g.to(out.dtype());
    int[] sizes = out.data.sizes();
    Tensor result = Creation.empty(sizes.clone(), out.dtype(), out.device());
    backend(out).reluBackward(Views.expandData(gc.data, sizes), out.data, result.data);
    return result;
  }

  static Tensor logicalNot(Tensor a) {
    Tensor ac = a.to(DType.BOOL);
    Tensor out = Creation.empty(ac.data.sizes().clone(), DType.BOOL, a.device());
    backend(a).unary(UnaryOp.LOGICAL_NOT, ac.data, out.data);
    return out;
  }

  // ---------------------------------------------------------------- where

  static Tensor where(Tensor condition, Tensor a, Tensor b) {
    Checks.bool("where", "condition", condition);
    Tensor[] operands = {condition, a, b};
    String[] names = {"condition", "input", "other"};
    Device device = Device.cpu();
    for (Tensor t : operands) {
      if (!Checks.isCpuScalar(t)) {
        device = t.device();
        break;
      }
    }
    for (int i = 0; i < operands.length; i++) {
      if (!operands[i].device().equals(device)) {
        if (!Checks.isCpuScalar(operands[i])) {
          throw new DeviceMismatchException(device, operands[i].device(), names[i], "where");
        }
        operands[i] = liftScalar(operands[i], device);
      }
    }
    condition = operands[0];
    a = operands[1];
    b = operands[2];
    DType compute = TypePromotion.of(a, b);
    int[] sizes =
        Checks.broadcast("where", condition.data.sizes(), "condition", a.data.sizes(), "input");
    sizes = Checks.broadcast("where", sizes, "condition and input", b.data.sizes(), "other");
    Tensor ac = a.to(compute);
    Tensor bc = b.to(compute);
    Tensor cond = condition;
    Tensor out = Creation.empty(sizes, compute, device);
    backend(out)
        .where(
            Views.expandData(cond.data, sizes),
            Views.expandData(ac.data, sizes),
            Views.expandData(bc.data, sizes),
            out.data);
    if (!compute.isFloatingPoint()) {
      return out;
    }
    return Node.record(
        "where",
        out,
        new Tensor[] {ac, bc},
        new Tensor[] {cond},
        (g, needs) -> {
          Tensor zero = Creation.scalarOn(0, g.dtype(), g.device());
          return new Tensor[] {
            needs[0] ? Views.sumToShape(Tensor.where(cond, g, zero), ac.data.sizes()) : null,
            needs[1] ? Views.sumToShape(Tensor.where(cond, zero, g), bc.data.sizes()) : null
          };
        });
  }

  static Tensor maskedFill(Tensor a, Tensor mask, double value) {
    Checks.bool("maskedFill", "mask", mask);
    Checks.sameDevice("maskedFill", a, "mask", mask);
    int[] sizes = Checks.broadcast("maskedFill", a.data.sizes(), "self", mask.data.sizes(), "mask");
    if (sizes.length != a.dim() || !java.util.Arrays.equals(sizes, a.data.sizes())) {
      throw new IllegalArgumentException(
          "maskedFill: mask of shape "
              + mask.shape()
              + " must broadcast to the shape of self "
              + a.shape());
    }
    return where(mask, Creation.scalarOn(value, a.dtype(), a.device()), a);
  }

  private static Backend backend(Tensor t) {
    return t.data.storage().backend();
  }
}
