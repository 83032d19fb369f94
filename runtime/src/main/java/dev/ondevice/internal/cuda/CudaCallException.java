package dev.ondevice.internal.cuda;

import jcuda.driver.CUresult;

/** A CUDA driver call failed: names the call, the error and the device. */
public final class CudaCallException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int result;

  CudaCallException(String call, int result, String where) {
    super(call + " failed on " + where + ": " + CUresult.stringFor(result));
    this.result = result;
  }

  /** The driver's {@code CUresult}. */
  public int result() {
    return result;
  }
}
