package dev.ondevice.processor.analysis;

/** How a finding is reported. */
public enum Severity {
  /** A compile error. */
  ERROR,
  /** A compiler warning. */
  WARNING,
  /** Not reported. */
  OFF
}
