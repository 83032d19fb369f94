package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * A model that was never moved is used with tensors on another device: the device analysis's {@link
 * CheckId#MODEL_NOT_MOVED} as an Error Prone check.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary = "A model that was never moved is used with tensors on another device",
    severity = BugPattern.SeverityLevel.ERROR,
    linkType = BugPattern.LinkType.NONE)
public final class ModelNotMoved extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.MODEL_NOT_MOVED;
  }
}
