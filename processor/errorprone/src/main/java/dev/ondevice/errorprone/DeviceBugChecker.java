package dev.ondevice.errorprone;

import com.google.errorprone.BugPattern;
import com.google.errorprone.VisitorState;
import com.google.errorprone.bugpatterns.BugChecker;
import com.google.errorprone.fixes.SuggestedFix;
import com.google.errorprone.matchers.Description;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.tools.javac.api.JavacTrees;
import com.sun.tools.javac.model.JavacElements;
import com.sun.tools.javac.model.JavacTypes;
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
 * processor's device analysis per compilation unit, shared by all checks (no second
 * implementation of the device rules), with the analysis's fixes as suggested fixes.
 */
public abstract class DeviceBugChecker extends BugChecker implements BugChecker.CompilationUnitTreeMatcher {
  private static final long serialVersionUID = 1L;
  private static final Map<CompilationUnitTree, List<Finding>> FINDINGS =
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

  private static List<Finding> analyze(CompilationUnitTree unit, VisitorState state) {
    DeviceAnalysis analysis = new DeviceAnalysis(JavacTrees.instance(state.context),
        JavacElements.instance(state.context), JavacTypes.instance(state.context), AnalysisOptions.defaults());
    return analysis.analyze(unit);
  }

  private Description describe(Finding f, VisitorState state) {
    Description.Builder d = buildDescription(f.tree()).setMessage(f.message());
    if (f.severity() == Severity.WARNING && defaultSeverity() == BugPattern.SeverityLevel.ERROR) {
      d.overrideSeverity(BugPattern.SeverityLevel.WARNING);
    }
    for (Fix fix : f.fixes()) {
      SuggestedFix.Builder s = SuggestedFix.builder().setShortDescription(fix.description());
      for (Fix.Edit e : fix.edits()) {
        switch (e.kind()) {
          case REPLACE:
            s.replace(e.tree(), e.text());
            break;
          case PREFIX:
            s.prefixWith(e.tree(), e.text());
            break;
          default:
            s.postfixWith(e.tree(), e.text());
        }
      }
      fix.imports().forEach(s::addImport);
      d.addFix(s.build());
    }
    return d.build();
  }
}
