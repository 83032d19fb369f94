package dev.ondevice.processor.analysis;

import com.sun.source.tree.BlockTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * The device analysis: every method, initializer and lambda body of a class (nested and local
 * classes included) interpreted once over abstract device values, with the findings of each check.
 * Shared by the annotation processor and the Error Prone checks. One instance per compilation; it
 * caches method semantics.
 */
public final class DeviceAnalysis {
  private final Trees trees;
  private final Elements elements;
  private final Types types;
  private final AnalysisOptions options;
  private final IdentityHashMap<ExecutableElement, MethodSemantics> semantics =
      new IdentityHashMap<>();
  private final ClassFacts facts = new ClassFacts();
  private RuntimeTypes runtimeTypes;

  /**
   * An analysis of the classes of one compilation, with javac's utilities and the options it was
   * given.
   */
  public DeviceAnalysis(Trees trees, Elements elements, Types types, AnalysisOptions options) {
    this.trees = trees;
    this.elements = elements;
    this.types = types;
    this.options = options;
  }

  /**
   * Analyses the class at {@code classPath}, its member, local and anonymous classes included;
   * returns its findings, in the order of the source. Each body is interpreted once, callers before
   * the methods they call ({@link CallSites}); the scan descends into a body only to reach the
   * classes it declares.
   */
  public List<Finding> analyze(TreePath classPath) {
    if (!options.enabled()) {
      return List.of();
    }
    CompilationUnitTree unit = classPath.getCompilationUnit();
    if (runtimeTypes == null) {
      runtimeTypes = new RuntimeTypes(elements, types);
    }
    if (!runtimeTypes.present()) {
      return List.of();
    }
    AnalysisContext ctx =
        new AnalysisContext(trees, unit, elements, runtimeTypes, options, semantics, facts);
    facts.steps.scan(classPath, ctx);
    List<TreePath> bodies = new ArrayList<>();
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitClass(ClassTree node, Void unused) {
        localModelClass(ctx, getCurrentPath());
        return super.visitClass(node, null);
      }

      @Override
      public Void visitMethod(MethodTree node, Void unused) {
        if (node.getBody() != null) {
          bodies.add(getCurrentPath());
          return containsClass(node.getBody()) ? super.visitMethod(node, null) : null;
        }
        return null;
      }

      @Override
      public Void visitBlock(BlockTree node, Void unused) {
        TreePath p = getCurrentPath();
        if (p.getParentPath().getLeaf() instanceof ClassTree) {
          bodies.add(p);
          return containsClass(node) ? super.visitBlock(node, null) : null;
        }
        return super.visitBlock(node, null);
      }

      @Override
      public Void visitVariable(VariableTree node, Void unused) {
        TreePath p = getCurrentPath();
        if (p.getParentPath().getLeaf() instanceof ClassTree && node.getInitializer() != null) {
          bodies.add(new TreePath(p, node.getInitializer()));
          return containsClass(node.getInitializer()) ? super.visitVariable(node, null) : null;
        }
        return super.visitVariable(node, null);
      }
    }.scan(classPath, null);
    for (TreePath body : ctx.callSites().callersFirst(bodies, trees, ctx.elements())) {
      analyzeBody(ctx, body);
      ctx.callSites().interpreted(body.getLeaf());
    }
    recordFacts(ctx, classPath);
    List<Finding> findings = ctx.findings();
    findings.sort(
        java.util.Comparator.comparingLong(
            f -> trees.getSourcePositions().getStartPosition(unit, f.tree())));
    return findings;
  }

  /**
   * Records what other classes may ask about this one and its member classes ({@link ClassFacts})
   * while its trees are there: javac discards them once it has generated the class.
   */
  private void recordFacts(AnalysisContext ctx, TreePath classPath) {
    if (!(trees.getElement(classPath) instanceof TypeElement type)
        || !(classPath.getLeaf() instanceof ClassTree c)) {
      return;
    }
    boolean model = runtimeTypes.isModel(type.asType());
    for (Tree member : c.getMembers()) {
      TreePath path = new TreePath(classPath, member);
      if (member instanceof ClassTree) {
        recordFacts(ctx, path);
      } else if (member instanceof MethodTree
          && model
          && trees.getElement(path) instanceof ExecutableElement m
          && m.getKind() == ElementKind.METHOD) {
        ctx.mayMoveItsModel(m);
        ctx.returns(m);
        ctx.deviceNeutralParameter(m, 0);
      } else if (member instanceof MethodTree
          && model
          && trees.getElement(path) instanceof ExecutableElement constructor
          && constructor.getKind() == ElementKind.CONSTRUCTOR) {
        ctx.constructorMovesModel(constructor);
      } else if (member instanceof MethodTree
          && runtimeTypes.isOptimizer(type.asType())
          && trees.getElement(path) instanceof ExecutableElement constructor
          && constructor.getKind() == ElementKind.CONSTRUCTOR) {
        ctx.constructorMakesTensors(constructor); // new Nero(params) in a class analysed later
      } else if (member instanceof VariableTree
          && trees.getElement(path) instanceof VariableElement f) {
        if (runtimeTypes.isDevice(f.asType())) {
          ctx.finalDevice(f);
        } else if (f.getModifiers().contains(Modifier.STATIC)
            && runtimeTypes.isTensor(f.asType())) {
          ctx.staticField(f);
        }
      }
    }
  }

  /**
   * Reports a local or anonymous class that is a model: the processor sees only the classes a
   * program declares by name outside method bodies, so no code is generated for it, and moving it,
   * listing its parameters or saving its state would fail at run time.
   */
  private void localModelClass(AnalysisContext ctx, TreePath classPath) {
    if (!(trees.getElement(classPath) instanceof TypeElement type)
        || !runtimeTypes.isModel(type.asType())) {
      return;
    }
    String why =
        " the ondevice processor cannot generate its code (moving it, listing its parameters, saving its"
            + " state), so these fail at run time; ";
    switch (type.getNestingKind()) {
      case LOCAL ->
          ctx.report(
              CheckId.LOCAL_MODEL_CLASS,
              classPath,
              "Model class "
                  + type.getSimpleName()
                  + " is declared inside a method, where"
                  + why
                  + "declare "
                  + type.getSimpleName()
                  + " as a top-level class or a static nested class",
              false);
      case ANONYMOUS -> {
        TreePath at =
            classPath.getParentPath().getLeaf() instanceof NewClassTree
                ? classPath.getParentPath()
                : classPath;
        ctx.report(
            CheckId.LOCAL_MODEL_CLASS,
            at,
            "This anonymous subclass of "
                + types.asElement(type.getSuperclass()).getSimpleName()
                + " is a model, for which"
                + why
                + "declare it as a named top-level class or static nested class",
            false);
      }
      default -> {
        Element outer = type.getEnclosingElement();
        while (outer instanceof TypeElement t
            && t.getNestingKind() == javax.lang.model.element.NestingKind.MEMBER) {
          outer = t.getEnclosingElement();
        }
        if (outer instanceof TypeElement t && t.getNestingKind().isNested()) {
          ctx.report(
              CheckId.LOCAL_MODEL_CLASS,
              classPath,
              "Model class "
                  + type.getSimpleName()
                  + " is nested in a"
                  + " class declared inside a method, where"
                  + why
                  + "declare "
                  + type.getSimpleName()
                  + " in a top-level class",
              false);
        }
      }
    }
  }

  /**
   * Whether a tree declares a class (local or anonymous), whose members are bodies of their own:
   * only then does the scan descend into a body, the body itself being interpreted already.
   */
  static boolean containsClass(Tree body) {
    return TreeSearch.contains(body, t -> t instanceof ClassTree, t -> false);
  }

  /** Analyses one body; a failure is reported as one warning naming the method, never thrown. */
  private void analyzeBody(AnalysisContext ctx, TreePath body) {
    TypeElement type = enclosingType(body);
    ExecutableElement method =
        body.getLeaf() instanceof MethodTree ? (ExecutableElement) trees.getElement(body) : null;
    boolean spread =
        type != null && ctx.types().isModel(type.asType()) && ctx.placesPartsItself(type);
    ModelScope scope =
        new ModelScope(
            ctx.types(), type, method, !isStatic(body), spread, ctx.deviceFieldMovedTo(type));
    ctx.pushBuffer();
    try {
      MethodInterpreter interpreter = new MethodInterpreter(ctx, scope, method, Env.start(), true);
      if (method != null) {
        interpreter.method(body, scope);
        List<TreePath> calls = TreeSearch.callsWhereWritten(body);
        // The checks that read statements need a move of a model (or a load of an optimizer's
        // state, which a helper's move may follow): most methods have neither.
        if (calls.stream()
            .anyMatch(
                c ->
                    TreeSearch.named(c, "toDevice")
                        || TreeSearch.named(c, "loadStateDict")
                        || TreeSearch.named(c, "restore"))) {
          OptimizerStateOrder.check(body, calls, ctx);
        }
        if (calls.stream().anyMatch(c -> TreeSearch.named(c, "toDevice"))) {
          ModelMovedInLoop.check(body, calls, ctx);
          CopyLeftBehind.check(body, calls, ctx);
        }
      } else {
        interpreter.body(body);
      }
      ctx.commitBuffer();
    } catch (RuntimeException | StackOverflowError e) {
      ctx.discardBuffer();
      ctx.report(
          CheckId.ANALYSIS_FAILURE,
          body,
          "the device analysis of "
              + scope.methodName()
              + " failed and skipped it ("
              + e
              + "); please report it",
          false);
    }
  }

  /**
   * Whether a body is static: a static method, a static initializer or a static field's
   * initializer.
   */
  private boolean isStatic(TreePath body) {
    Tree leaf = body.getLeaf();
    if (leaf instanceof MethodTree methodTree) {
      return methodTree.getModifiers().getFlags().contains(Modifier.STATIC);
    }
    if (leaf instanceof BlockTree blockTree) {
      return blockTree.isStatic();
    }
    Tree parent = body.getParentPath().getLeaf();
    return parent instanceof VariableTree variableTree
        && variableTree.getModifiers().getFlags().contains(Modifier.STATIC);
  }

  private TypeElement enclosingType(TreePath path) {
    for (TreePath p = path; p != null; p = p.getParentPath()) {
      if (p.getLeaf() instanceof ClassTree) {
        Element e = trees.getElement(p);
        return e instanceof TypeElement typeElement ? typeElement : null;
      }
    }
    return null;
  }

  /**
   * The findings of all classes of a compilation unit; a class whose analysis fails outside its
   * method bodies gets one {@link CheckId#ANALYSIS_FAILURE} finding instead, never an exception.
   */
  public List<Finding> analyze(CompilationUnitTree unit) {
    List<Finding> out = new ArrayList<>();
    for (Tree t : unit.getTypeDecls()) {
      if (t instanceof ClassTree type) {
        try {
          out.addAll(analyze(new TreePath(new TreePath(unit), t)));
        } catch (RuntimeException | StackOverflowError e) {
          Severity severity = options.severity(CheckId.ANALYSIS_FAILURE, false);
          if (severity != Severity.OFF) {
            out.add(
                new Finding(
                    CheckId.ANALYSIS_FAILURE,
                    severity,
                    t,
                    "the device analysis of "
                        + type.getSimpleName()
                        + " failed ("
                        + e
                        + ") and skipped it; please report it",
                    List.of()));
          }
        }
      }
    }
    return out;
  }
}
