package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * A move to a device written into the code beside moves to a device variable: the device analysis's
 * {@link CheckId#HARD_CODED_DEVICE} as an Error Prone check.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary =
        "A tensor moved to a device written into the code, where the code around it follows a device variable",
    severity = BugPattern.SeverityLevel.WARNING,
    linkType = BugPattern.LinkType.NONE)
public final class HardCodedDevice extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.HARD_CODED_DEVICE;
  }
}
