package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * Batch targets left on the CPU while the inputs were moved to the device: the device analysis's
 * {@link CheckId#TARGETS_NOT_MOVED} as an Error Prone check.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary = "Batch targets left on the CPU while the inputs were moved to the device",
    severity = BugPattern.SeverityLevel.ERROR,
    linkType = BugPattern.LinkType.NONE)
public final class TargetsNotMoved extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.TARGETS_NOT_MOVED;
  }
}
