package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * The result of a non-blocking copy to the host read before a synchronisation: the device
 * analysis's {@link CheckId#UNSYNCED_NON_BLOCKING_READ} as an Error Prone check.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary = "The result of a non-blocking copy to the host read before a synchronisation",
    severity = BugPattern.SeverityLevel.ERROR,
    linkType = BugPattern.LinkType.NONE)
public final class UnsyncedNonBlockingRead extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.UNSYNCED_NON_BLOCKING_READ;
  }
}
