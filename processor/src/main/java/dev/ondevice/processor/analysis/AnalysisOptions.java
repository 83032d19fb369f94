package dev.ondevice.processor.analysis;

import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The analysis settings, from processor options: {@code -Aondevice.analysis=off} switches the
 * analysis off, {@code on} keeps it on even beside the Error Prone checks, {@code auto} (the
 * default) lets those take over when present; {@code -Aondevice.check.<ID>=error|warning|off} sets
 * one check's severity.
 */
public final class AnalysisOptions {
  /** The option that switches the analysis on or off. */
  public static final String ANALYSIS = "ondevice.analysis";

  /** The prefix of per-check severity options. */
  public static final String CHECK_PREFIX = "ondevice.check.";

  private final boolean enabled;
  private final boolean automatic;
  private final Map<CheckId, Severity> severities;

  private AnalysisOptions(boolean enabled, boolean automatic, Map<CheckId, Severity> severities) {
    this.enabled = enabled;
    this.automatic = automatic;
    this.severities = severities;
  }

  /** Every option name the processor accepts. */
  public static Set<String> supportedOptions() {
    Set<String> names = new LinkedHashSet<>();
    names.add(ANALYSIS);
    for (CheckId c : CheckId.values()) {
      names.add(CHECK_PREFIX + c.id());
    }
    return names;
  }

  /**
   * Options from processor options.
   *
   * @throws IllegalArgumentException naming an option with a value it does not take
   */
  public static AnalysisOptions from(Map<String, String> options) {
    String analysis = options.getOrDefault(ANALYSIS, "auto");
    if (!analysis.equals("on") && !analysis.equals("off") && !analysis.equals("auto")) {
      throw new IllegalArgumentException(
          "-A" + ANALYSIS + "=" + analysis + " must be auto, on or off");
    }
    Map<CheckId, Severity> severities = new EnumMap<>(CheckId.class);
    for (CheckId c : CheckId.values()) {
      String value = options.get(CHECK_PREFIX + c.id());
      if (value == null) {
        severities.put(c, c.defaultSeverity());
        continue;
      }
      try {
        severities.put(c, Severity.valueOf(value.trim().toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "-A" + CHECK_PREFIX + c.id() + "=" + value + " must be error, warning or off");
      }
    }
    return new AnalysisOptions(!analysis.equals("off"), analysis.equals("auto"), severities);
  }

  /** The defaults: every check on at its default severity. */
  public static AnalysisOptions defaults() {
    return from(Map.of());
  }

  /**
   * Whether the processor decides by itself ({@code auto}, the default): it steps aside when the
   * Error Prone checks are on the processor path.
   */
  public boolean automatic() {
    return automatic;
  }

  /** Whether the analysis runs. */
  public boolean enabled() {
    return enabled;
  }

  /** The severity of {@code check}; a warning-level finding of an error check stays a warning. */
  public Severity severity(CheckId check, boolean downgraded) {
    Severity s = severities.get(check);
    return downgraded && s == Severity.ERROR ? Severity.WARNING : s;
  }
}
