package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * Optimizer state loaded before its model moves: the device analysis's {@link
 * CheckId#OPTIMIZER_STATE_LEFT_BEHIND} as an Error Prone check.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary = "Optimizer state loaded onto a model's parameters, which then move without it",
    severity = BugPattern.SeverityLevel.ERROR,
    linkType = BugPattern.LinkType.NONE)
public final class OptimizerStateLeftBehind extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.OPTIMIZER_STATE_LEFT_BEHIND;
  }
}
