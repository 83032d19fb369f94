package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * A tensor move whose result is discarded: tensors do not move in place: the device analysis's
 * {@link CheckId#DISCARDED_MOVE} as an Error Prone check.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary = "A tensor move whose result is discarded: tensors do not move in place",
    severity = BugPattern.SeverityLevel.ERROR,
    linkType = BugPattern.LinkType.NONE)
public final class DiscardedMove extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.DISCARDED_MOVE;
  }
}
