package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * A host synchronisation (item, toArray, cpu, printing) inside the batch loop: the device
 * analysis's {@link CheckId#HOST_SYNC_IN_LOOP} as an Error Prone check.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary = "A host synchronisation (item, toArray, cpu, printing) inside the batch loop",
    severity = BugPattern.SeverityLevel.WARNING,
    linkType = BugPattern.LinkType.NONE)
public final class HostSyncInLoop extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.HOST_SYNC_IN_LOOP;
  }
}
