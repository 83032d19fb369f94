package dev.ondevice.errorprone;

import com.google.auto.service.AutoService;
import com.google.errorprone.BugPattern;
import com.google.errorprone.bugpatterns.BugChecker;
import dev.ondevice.processor.analysis.CheckId;

/**
 * A model class declared as a local or anonymous class: the device analysis's {@link
 * CheckId#LOCAL_MODEL_CLASS} as an Error Prone check.
 */
@AutoService(BugChecker.class)
@BugPattern(
    summary =
        "A model class declared as a local or anonymous class, for which no code can be generated",
    severity = BugPattern.SeverityLevel.ERROR,
    linkType = BugPattern.LinkType.NONE)
public final class LocalModelClass extends DeviceBugChecker {
  private static final long serialVersionUID = 1L;

  @Override
  CheckId check() {
    return CheckId.LOCAL_MODEL_CLASS;
  }
}
