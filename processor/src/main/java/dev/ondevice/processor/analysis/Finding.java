package dev.ondevice.processor.analysis;

import com.sun.source.tree.Tree;
import java.util.List;

/**
 * A device bug found at one expression: the check, its severity, the message and the fixes, best
 * first.
 */
public final class Finding {
  private final CheckId check;
  private final Severity severity;
  private final Tree tree;
  private final String message;
  private final List<Fix> fixes;

  Finding(CheckId check, Severity severity, Tree tree, String message, List<Fix> fixes) {
    this.check = check;
    this.severity = severity;
    this.tree = tree;
    this.message = message;
    this.fixes = List.copyOf(fixes);
  }

  /** The check. */
  public CheckId check() {
    return check;
  }

  /** The severity after options. */
  public Severity severity() {
    return severity;
  }

  /** The expression or statement reported. */
  public Tree tree() {
    return tree;
  }

  /** The message, without the check ID. */
  public String message() {
    return message;
  }

  /** Suggested fixes, best first; empty when no fix is mechanical and safe. */
  public List<Fix> fixes() {
    return fixes;
  }

  /** The message as the compiler prints it: {@code [ID] message}. */
  public String formatted() {
    return "[" + check.id() + "] " + message;
  }
}
