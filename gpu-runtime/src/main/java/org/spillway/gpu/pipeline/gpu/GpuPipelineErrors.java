package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.expr.Expr;

/** Turns the error word of a pipeline kernel into the exception the CPU backend throws for the same row. */
final class GpuPipelineErrors {
  private GpuPipelineErrors() {}

  /**
   * Throws for a non-zero error word: code in the high 32 bits, in the low 32 the failing instruction (or,
   * for the selection_aggregate kernels, the sum) whose expression {@code origins} holds.
   */
  static void throwIfFailed(long error, Expr[] origins) {
    if (error == 0) {
      return;
    }
    int code = (int) (error >>> 32);
    int at = (int) error;
    Expr origin = at >= 0 && at < origins.length ? origins[at] : null;
    switch (code) {
      case GpuAggregateState.ERR_ARITH -> throw new ArithmeticException(origin.type()
          + " overflow or division by zero in " + origin + ": long overflow (on the GPU)");
      case GpuAggregateState.ERR_DIVIDE_BY_ZERO -> throw new ArithmeticException(origin.type()
          + " overflow or division by zero in " + origin + ": division by zero (on the GPU)");
      case GpuAggregateState.ERR_INT32 -> throw new ArithmeticException("INTEGER overflow in " + origin
          + " (on the GPU)");
      case GpuAggregateState.ERR_CAST -> throw new ArithmeticException("overflow casting "
          + ((Expr.Cast) origin).operand().type() + " to " + origin.type() + " in " + origin + " (on the GPU)");
      case GpuAggregateState.ERR_KEY_RANGE -> throw new KeyOutOfRange("a group key holds a value outside its 32 bits or"
          + " outside the range its column's statistics give (GPU hash aggregation)");
      default -> throw new IllegalStateException("GPU pipeline failed with error code " + code + " at " + at);
    }
  }

  /** A group key outside the bits the GPU packed it into: the CPU backend aggregates the run instead. */
  static final class KeyOutOfRange extends RuntimeException {
    KeyOutOfRange(String message) {
      super(message);
    }
  }
}
