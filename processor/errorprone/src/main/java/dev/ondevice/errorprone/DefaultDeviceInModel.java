package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * A tensor created on the default device inside a model meets the model's state or inputs: the
 * device analysis's {@link CheckId#DEFAULT_DEVICE_IN_MODEL} as an Error Prone check.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary =
        "A tensor created on the default device inside a model meets the model's state or inputs",
    severity = BugPattern.SeverityLevel.ERROR,
    linkType = BugPattern.LinkType.NONE)
public final class DefaultDeviceInModel extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.DEFAULT_DEVICE_IN_MODEL;
  }
}
