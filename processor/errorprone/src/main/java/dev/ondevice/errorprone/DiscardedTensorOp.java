package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * A tensor op whose result is discarded: tensor ops return a new tensor: the device analysis's
 * {@link CheckId#DISCARDED_TENSOR_OP} as an Error Prone check.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary = "A tensor op whose result is discarded: tensor ops return a new tensor",
    severity = BugPattern.SeverityLevel.ERROR,
    linkType = BugPattern.LinkType.NONE)
public final class DiscardedTensorOp extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.DISCARDED_TENSOR_OP;
  }
}
