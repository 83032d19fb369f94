package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * Tensors on provably different devices meet in one op, model call or loss: the device analysis's
 * {@link CheckId#MIXED_DEVICES} as an Error Prone check.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary = "Tensors on provably different devices meet in one op, model call or loss",
    severity = BugPattern.SeverityLevel.ERROR,
    linkType = BugPattern.LinkType.NONE)
public final class MixedDevices extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.MIXED_DEVICES;
  }
}
