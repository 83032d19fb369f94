package dev.ondevice.internal.cuda;

import dev.ondevice.internal.backend.BinaryOp;
import dev.ondevice.internal.backend.RandomKind;
import dev.ondevice.internal.backend.ReduceOp;
import dev.ondevice.internal.backend.UnaryOp;

/**
 * The op codes the kernels switch on: the enums {@code UnaryCode}, {@code BinaryCode}, {@code
 * ReduceCode} and {@code RandomCode} of {@code ondevice.cuh}, value by value. Spelled out rather
 * than taken from the Java enums' order, so that reordering a Java enum cannot silently change what
 * a kernel computes; a test checks both against the header. Internal to the runtime.
 */
final class KernelCodes {
  private KernelCodes() {}

  static int of(UnaryOp op) {
    return switch (op) {
      case NEG -> 0;
      case ABS -> 1;
      case SIGN -> 2;
      case SQUARE -> 3;
      case RELU -> 4;
      case EXP -> 5;
      case LOG -> 6;
      case LOG1P -> 7;
      case EXPM1 -> 8;
      case SQRT -> 9;
      case RSQRT -> 10;
      case RECIPROCAL -> 11;
      case SIN -> 12;
      case COS -> 13;
      case TANH -> 14;
      case SIGMOID -> 15;
      case ERF -> 16;
      case FLOOR -> 17;
      case CEIL -> 18;
      case ROUND -> 19;
      case LOGICAL_NOT -> 20;
    };
  }

  static int of(BinaryOp op) {
    return switch (op) {
      case ADD -> 0;
      case SUB -> 1;
      case MUL -> 2;
      case DIV -> 3;
      case POW -> 4;
      case MAXIMUM -> 5;
      case MINIMUM -> 6;
      case EQ -> 7;
      case NE -> 8;
      case LT -> 9;
      case LE -> 10;
      case GT -> 11;
      case GE -> 12;
      case LOGICAL_AND -> 13;
      case LOGICAL_OR -> 14;
      case LOGICAL_XOR -> 15;
    };
  }

  static int of(ReduceOp op) {
    return switch (op) {
      case SUM -> 0;
      case MEAN -> 1;
      case PROD -> 2;
      case MAX -> 3;
      case MIN -> 4;
      case ARGMAX -> 5;
      case ARGMIN -> 6;
    };
  }

  static int of(RandomKind kind) {
    return switch (kind) {
      case UNIFORM -> 0;
      case NORMAL -> 1;
      case INTEGERS -> 2;
    };
  }
}
