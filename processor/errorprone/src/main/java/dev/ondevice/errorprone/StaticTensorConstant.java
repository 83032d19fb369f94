package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * A static tensor constant, on the CPU, meets tensors on another device: the device analysis's
 * {@link CheckId#STATIC_TENSOR_CONSTANT} as an Error Prone check.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary = "A static tensor constant, on the CPU, meets tensors on another device",
    severity = BugPattern.SeverityLevel.ERROR,
    linkType = BugPattern.LinkType.NONE)
public final class StaticTensorConstant extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.STATIC_TENSOR_CONSTANT;
  }
}
