package dev.ondevice.processor;

import com.sun.source.util.JavacTask;
import dev.ondevice.processor.analysis.CheckId;

/**
 * Whether Error Prone runs the device checks in this compilation, so that the processor's own
 * analysis steps aside and no bug is reported twice: Error Prone is one of javac's {@code -Xplugin}
 * plugins, the checks are on the processor path beside it, and the plugin's arguments do not switch
 * them all off.
 */
final class ErrorProneDetection {
  private static final String PLUGIN_OPTION = "-Xplugin:";
  private static final String PLUGIN_NAME = "ErrorProne";

  private ErrorProneDetection() {}

  /** True when Error Prone will report the device findings of this task. */
  static boolean runsDeviceChecks(JavacTask task) {
    String arguments = errorProneArguments(task);
    return arguments != null && checksLoadable() && !allDeviceChecksOff(arguments);
  }

  /**
   * The arguments of the Error Prone plugin, or null when it is not among javac's plugins. javac
   * keeps its options in a context object that only Error Prone's own {@code --add-exports} lines
   * open; when they are missing, Error Prone cannot run in this JVM either.
   */
  private static String errorProneArguments(JavacTask task) {
    try {
      Object context = task.getClass().getMethod("getContext").invoke(task);
      Class<?> options =
          Class.forName(
              "com.sun.tools.javac.util.Options", false, task.getClass().getClassLoader());
      Object instance = options.getMethod("instance", context.getClass()).invoke(null, context);
      Object plugins = options.getMethod("get", String.class).invoke(instance, PLUGIN_OPTION);
      if (plugins == null) {
        return null;
      }
      for (String plugin : plugins.toString().split("\0", -1)) {
        String p = plugin.trim();
        if (p.equals(PLUGIN_NAME) || p.startsWith(PLUGIN_NAME + " ")) {
          return p.substring(PLUGIN_NAME.length());
        }
      }
      return null;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return null;
    }
  }

  private static boolean checksLoadable() {
    ClassLoader loader = ErrorProneDetection.class.getClassLoader();
    try {
      Class.forName("com.google.errorprone.bugpatterns.BugChecker", false, loader);
      Class.forName("dev.ondevice.errorprone.DeviceBugChecker", false, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** {@code -XepDisableAllChecks} without any device check enabled again or patched by name. */
  private static boolean allDeviceChecksOff(String arguments) {
    if (!arguments.contains("-XepDisableAllChecks")) {
      return false;
    }
    for (CheckId c : CheckId.values()) {
      if (arguments.contains("-Xep:" + c.id() + " ")
          || arguments.endsWith("-Xep:" + c.id())
          || arguments.contains("-Xep:" + c.id() + ":ERROR")
          || arguments.contains("-Xep:" + c.id() + ":WARN")
          || arguments.matches("(?s).*-XepPatchChecks:\\S*\\b" + c.id() + "\\b.*")) {
        return false;
      }
    }
    return true;
  }
}
