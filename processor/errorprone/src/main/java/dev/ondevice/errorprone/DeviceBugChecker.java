package dev.ondevice.errorprone;

import com.google.errorprone.BugPattern;
import com.google.errorprone.VisitorState;
import com.google.errorprone.bugpatterns.BugChecker;
import com.google.errorprone.fixes.SuggestedFix;
import com.google.errorprone.matchers.Description;
import com.google.errorprone.util.ASTHelpers;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.tools.javac.api.JavacTrees;
import com.sun.tools.javac.model.JavacElements;
import com.sun.tools.javac.model.JavacTypes;
import com.sun.tools.javac.util.Context;
import dev.ondevice.processor.analysis.AnalysisOptions;
import dev.ondevice.processor.analysis.CheckId;
import dev.ondevice.processor.analysis.DeviceAnalysis;
import dev.ondevice.processor.analysis.Finding;
import dev.ondevice.processor.analysis.Fix;
import dev.ondevice.processor.analysis.Severity;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The base of the device checks: each check reports the findings of its ID from one run of the
 * processor's device analysis per compilation unit, shared by all checks (no second implementation
 * of the device rules), with the analysis's fixes as suggested fixes.
 */
public abstract class DeviceBugChecker extends BugChecker
    implements BugChecker.CompilationUnitTreeMatcher {
  private static final long serialVersionUID = 1L;
  private static final Map<CompilationUnitTree, List<Finding>> FINDINGS =
      Collections.synchronizedMap(new WeakHashMap<>());
  private static final Map<Context, DeviceAnalysis> ANALYSES =
      Collections.synchronizedMap(new WeakHashMap<>());

  /** The check this checker reports. */
  abstract CheckId check();

  @Override
  public final Description matchCompilationUnit(CompilationUnitTree unit, VisitorState state) {
    List<Finding> findings = FINDINGS.computeIfAbsent(unit, u -> analyze(u, state));
    for (Finding f : findings) {
      if (f.check() == check()) {
        state.reportMatch(describe(f, state));
      }
    }
    return Description.NO_MATCH;
  }

  /**
   * One analysis per compilation (its caches of method semantics and runtime types are per
   * compiler).
   */
  private static List<Finding> analyze(CompilationUnitTree unit, VisitorState state) {
    DeviceAnalysis analysis =
        ANALYSES.computeIfAbsent(
            state.context,
            c ->
                new DeviceAnalysis(
                    JavacTrees.instance(c),
                    JavacElements.instance(c),
                    JavacTypes.instance(c),
                    AnalysisOptions.defaults()));
    return analysis.analyze(unit);
  }

  private Description describe(Finding f, VisitorState state) {
    Description.Builder d = buildDescription(f.tree()).setMessage(f.message());
    if (f.severity() == Severity.WARNING && defaultSeverity() == BugPattern.SeverityLevel.ERROR) {
      downgrade(d);
    }
    for (Fix fix : f.fixes()) {
      SuggestedFix suggested = suggested(fix, state);
      if (suggested != null) {
        d.addFix(suggested);
      }
    }
    return d.build();
  }

  /**
   * The fix as Error Prone's, or null when one of its trees has no source range (code javac
   * synthesised, such as the type of a {@code var}): the finding is then reported without it, never
   * as a crash of the check.
   */
  private static SuggestedFix suggested(Fix fix, VisitorState state) {
    SuggestedFix.Builder s = SuggestedFix.builder().setShortDescription(fix.description());
    for (Fix.Edit e : fix.edits()) {
      if (ASTHelpers.getStartPosition(e.tree()) < 0 || state.getEndPosition(e.tree()) < 0) {
        return null;
      }
      switch (e.kind()) {
        case REPLACE -> s.replace(e.tree(), e.text());
        case PREFIX -> s.prefixWith(e.tree(), e.text());
        default -> s.postfixWith(e.tree(), e.text());
      }
    }
    fix.imports().forEach(s::addImport);
    return s.build();
  }

  /**
   * Reports a finding of an error check as a warning: the analysis downgrades some findings of
   * error checks (as the processor reports them), so the severity is decided per finding.
   */
  @SuppressWarnings("RestrictedApi") // the one severity that is per finding, not per check
  private static void downgrade(Description.Builder d) {
    d.overrideSeverity(BugPattern.SeverityLevel.WARNING);
  }
}
