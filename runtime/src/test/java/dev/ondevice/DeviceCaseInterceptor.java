package dev.ondevice;

import java.lang.reflect.Method;
import java.util.List;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.opentest4j.TestAbortedException;

/**
 * Decides, in the {@code cuda-backend} test execution, which cases run: those with a CUDA device
 * among their arguments, when that device exists; every other case is reported as skipped, with the
 * reason (CUDA not available here, a second device missing, or a case that the default execution
 * runs). Does nothing in the default execution. Registered for every test class by JUnit's
 * extension auto-detection.
 */
public final class DeviceCaseInterceptor implements InvocationInterceptor {
  @Override
  public void interceptTestMethod(
      Invocation<Void> invocation,
      ReflectiveInvocationContext<Method> context,
      ExtensionContext extensionContext)
      throws Throwable {
    decide(invocation, context.getArguments());
  }

  @Override
  public void interceptTestTemplateMethod(
      Invocation<Void> invocation,
      ReflectiveInvocationContext<Method> context,
      ExtensionContext extensionContext)
      throws Throwable {
    decide(invocation, context.getArguments());
  }

  private static void decide(Invocation<Void> invocation, List<Object> arguments) throws Throwable {
    if (!TestDevices.cudaBackendRun()) {
      invocation.proceed();
      return;
    }
    int highest = -1;
    for (Object a : arguments) {
      if (a instanceof Device d && d.isCuda()) {
        highest = Math.max(highest, d.resolved().index());
      }
    }
    String reason = null;
    if (highest < 0) {
      reason = "not a CUDA case: the default test execution runs it";
    } else if (!Cuda.isAvailable()) {
      reason = "CUDA is not available: " + Cuda.unavailableReason().orElse("");
    } else if (Cuda.isEmulated()) {
      reason = "the CUDA devices are emulated, not the CUDA backend's";
    } else if (highest >= Cuda.deviceCount()) {
      reason =
          "needs cuda:"
              + highest
              + " but this machine has "
              + Cuda.deviceCount()
              + " CUDA device(s)";
    }
    if (reason != null) {
      invocation.skip();
      throw new TestAbortedException(reason);
    }
    invocation.proceed();
  }
}
