package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * A tensor created on the CPU and moved to a device right away: the device analysis's {@link
 * CheckId#CREATE_THEN_MOVE} as an Error Prone check.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary = "A tensor created on the CPU and moved to a device right away",
    severity = BugPattern.SeverityLevel.WARNING,
    linkType = BugPattern.LinkType.NONE)
public final class CreateThenMove extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.CREATE_THEN_MOVE;
  }
}
