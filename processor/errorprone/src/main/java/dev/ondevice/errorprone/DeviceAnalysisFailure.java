package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * The device analysis failed on a method, which was skipped: the device analysis's {@link
 * CheckId#ANALYSIS_FAILURE} as an Error Prone check, so that a skipped method is never silent.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary = "The device analysis failed on a method, which was skipped",
    severity = BugPattern.SeverityLevel.WARNING,
    linkType = BugPattern.LinkType.NONE)
public final class DeviceAnalysisFailure extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.ANALYSIS_FAILURE;
  }
}
