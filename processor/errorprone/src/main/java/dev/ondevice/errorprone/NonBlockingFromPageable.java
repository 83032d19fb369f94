package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * A non-blocking copy from host memory that is not pinned: the device analysis's {@link
 * CheckId#NON_BLOCKING_FROM_PAGEABLE} as an Error Prone check.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary = "A non-blocking copy from host memory that is not pinned",
    severity = BugPattern.SeverityLevel.WARNING,
    linkType = BugPattern.LinkType.NONE)
public final class NonBlockingFromPageable extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.NON_BLOCKING_FROM_PAGEABLE;
  }
}
