package dev.ondevice.processor.analysis;

import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.BlockTree;
import com.sun.source.tree.BreakTree;
import com.sun.source.tree.CaseTree;
import com.sun.source.tree.CatchTree;
import com.sun.source.tree.CompoundAssignmentTree;
import com.sun.source.tree.ConditionalExpressionTree;
import com.sun.source.tree.ContinueTree;
import com.sun.source.tree.DoWhileLoopTree;
import com.sun.source.tree.EnhancedForLoopTree;
import com.sun.source.tree.ExpressionStatementTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.ForLoopTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.IfTree;
import com.sun.source.tree.LabeledStatementTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.LiteralTree;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewArrayTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.ReturnTree;
import com.sun.source.tree.StatementTree;
import com.sun.source.tree.SwitchExpressionTree;
import com.sun.source.tree.SwitchTree;
import com.sun.source.tree.SynchronizedTree;
import com.sun.source.tree.ThrowTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.TryTree;
import com.sun.source.tree.TypeCastTree;
import com.sun.source.tree.UnaryTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.tree.WhileLoopTree;
import com.sun.source.tree.YieldTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import dev.ondevice.annotations.BatchSource;
import dev.ondevice.annotations.KeepsDevice;
import dev.ondevice.annotations.ReadinessCheck;
import dev.ondevice.annotations.ReturnsDevice;
import dev.ondevice.annotations.Step;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeMirror;

/**
 * The flow-sensitive, intra-procedural interpretation of one method (or initializer, or lambda)
 * body over abstract values: one pass over the tree, branches joined, loops iterated to a fixed
 * point (usually after one pass). It owns every change of the abstract state; as it evaluates
 * expressions it tells the {@link Checks} the facts it finds, and they report.
 */
final class MethodInterpreter implements Interpretation {
  private static final int MAX_LOOP_PASSES = 5;

  /** Whether a loop's second iteration is being interpreted ({@link #secondIteration}). */
  private boolean laterIteration;

  /** A break/continue target: a loop, a switch or a labelled statement. */
  private static final class Frame {
    final Tree tree;
    final String label;
    final boolean loop;
    final List<Env> breaks = new ArrayList<>();
    final List<Env> continues = new ArrayList<>();

    /**
     * The values a switch expression's {@code yield}s give (their environments are in {@link
     * #breaks}).
     */
    final List<Value> yields = new ArrayList<>();

    Frame(Tree tree, String label, boolean loop) {
      this.tree = tree;
      this.label = label;
      this.loop = loop;
    }
  }

  private final AnalysisContext ctx;
  private final RuntimeTypes rt;
  private final ModelScope scope;
  private final boolean reporting;
  private final Checks checks;
  private final DeviceOps ops;
  private Value thisValue;
  private final ExecutableElement method;
  private final Deque<Frame> frames = new ArrayDeque<>();
  private final IdentityHashMap<Tree, Value> values = new IdentityHashMap<>();

  /**
   * The last call evaluated and its semantics: an expression's outermost call is evaluated last.
   */
  private Tree lastCall;

  private MethodSemantics lastCallSemantics;
  private final IdentityHashMap<Tree, Boolean> cpuFactories = new IdentityHashMap<>();
  private final BatchIterators batchIterators;
  private final TensorContainers containers;

  /** The arguments of the call this body is interpreted for ({@link CallResults}), or null. */
  private List<Value> given;

  /** What the body's returns give, joined; null before any. */
  private Value returned;

  private Env env;
  private int batchDepth;

  /**
   * Why the body runs once per batch where no batch loop or {@code @Step} says so ({@code "update
   * is called in the batch loop of Trainer.fit"}), or null.
   */
  private String stepReason;

  /** Why the body runs on every forward pass of a model ({@link StepMethods}), or null. */
  private String forwardStep;

  /**
   * The innermost batch loop being interpreted, or the lambda run once per batch by a batch source
   * ({@code loader.forEach(b -> ...)}); null outside one, or in a {@code @Step} method.
   */
  private Tree batchLoopTree;

  /** The call on a batch source whose arguments are being evaluated, or null. */
  private Tree batchSourceCall;

  private String pendingLabel;

  /**
   * The local variables whose device an in-place call changed ({@code model.toDevice(device)}),
   * with their new value: what a lambda does to the variables it captures. Null until one is.
   */
  private IdentityHashMap<Element, Value> changedInPlace;

  /**
   * An interpreter of a body of {@code scope}'s class, starting from {@code start}; {@code
   * reporting} says whether the checks are told what it finds, which they are not where only a
   * summary of the method is wanted.
   */
  MethodInterpreter(
      AnalysisContext ctx,
      ModelScope scope,
      ExecutableElement method,
      Env start,
      boolean reporting) {
    this.ctx = ctx;
    this.rt = ctx.types();
    this.scope = scope;
    this.reporting = reporting;
    this.checks = reporting ? Checks.all(ctx, this) : Checks.NONE;
    this.ops = new DeviceOps(ctx, scope, this, checks);
    this.thisValue = scope.thisValue();
    this.method = method;
    this.env = start;
    this.batchIterators = new BatchIterators(ctx, variable -> env.get(variable));
    this.containers = ctx.containers();
  }

  /** Binds the parameters to the values of one call's arguments, for {@link CallResults}. */
  void given(List<Value> arguments) {
    this.given = arguments;
  }

  /** What the returns of the interpreted body give, joined; null where none returns a value. */
  Value returned() {
    return returned;
  }

  /** Interprets a method body, its parameters bound by their declarations. */
  void method(TreePath methodPath, ModelScope scope) {
    MethodTree m = (MethodTree) methodPath.getLeaf();
    for (VariableTree p : m.getParameters()) {
      TreePath pp = new TreePath(methodPath, p);
      Element e = ctx.trees().getElement(pp);
      int index = m.getParameters().indexOf(p);
      if (e != null && given != null && index < given.size()) {
        Place at = given.get(index).place();
        boolean callersMove = ctx.callResults().leavesMovesToCallers(method, ctx);
        boolean keepsWhereMade = !movesToADevice(method, ctx); // converting its dtype is not moving
        env.put(
            e,
            Value.on(callersMove ? at.givenAs(index) : at.withoutCaller())
                .withMadeAt(keepsWhereMade ? given.get(index).madeAt() : List.of()));
      } else if (e != null) {
        env.put(e, parameterValue((VariableElement) e, scope));
      }
    }
    if (method != null && rt.annotations().has(method, Step.class)) {
      batchDepth++;
    } else if (method != null && ctx.facts().steps.calledPerBatch(method) != null) {
      batchDepth++;
      stepReason = method.getSimpleName() + " is " + ctx.facts().steps.calledPerBatch(method);
    } else if (method != null) {
      forwardStep = ctx.facts().steps.runsPerForward(method);
    }
    statement(new TreePath(methodPath, m.getBody()));
  }

  /** Interprets a lambda body or an initializer: a statement or an expression. */
  void body(TreePath path) {
    if (path.getLeaf() instanceof ExpressionTree) {
      expression(path);
    } else {
      statement(path);
    }
  }

  private Value parameterValue(VariableElement p, ModelScope scope) {
    TypeMirror t = p.asType();
    Value given =
        scope.isModelInstanceMethod() || rt.declaredDevice(p) != null || method == null
            ? null
            : ctx.callSites().argument(method, method.getParameters().indexOf(p));
    if (given != null
        && given.place().isKnown()
        && (rt.isTensor(t)
            || containers.holdsTensors(t)
            || rt.isTensorRecord(t)
            || rt.isDevice(t)
            || rt.isModel(t))) {
      // accuracy(preds, y): where every call in the class gives it; on the CPU, the callers' to
      // move
      // where this method needs it, when they follow their calls into it (CallResults)
      int index = method.getParameters().indexOf(p);
      boolean callersMove = ctx.callResults().leavesMovesToCallers(method, ctx);
      // where the callers made it on the CPU, when moving it to a device is theirs to do
      return Value.on(callersMove ? given.place().givenAs(index) : given.place().throughCalls())
          .withMadeAt(movesToADevice(method, ctx) ? List.of() : given.madeAt());
    }
    if (rt.isTensor(t)) {
      String on = rt.declaredDevice(p);
      if (on != null) {
        return Value.on(scope.declaredPlace(on));
      }
      if (!scope.isModelInstanceMethod()) {
        return Value.UNKNOWN;
      }
      if (p.getEnclosingElement() instanceof ExecutableElement m
          && ctx.deviceNeutralParameter(m, m.getParameters().indexOf(p))) {
        // A tensor the method reads on the host, moves or copies in: on any device, or on the
        // device
        // every call in the class gives it (forward's indexes, read with item() in a cache update).
        Value fromCalls = ctx.callSites().argument(m, m.getParameters().indexOf(p));
        return fromCalls != null
                && fromCalls.place().isKnown()
                && !Place.CPU.equals(fromCalls.place())
            ? Value.on(fromCalls.place().throughCalls())
            : Value.UNKNOWN;
      }
      return Value.on(thisValue.place());
    }
    if (containers.holdsTensors(t)
        && scope.isModelInstanceMethod()
        && rt.declaredDevice(p) == null
        && !movesTensors(method, ctx)) {
      return Value.on(
          thisValue.place()); // forward(x, Map<String, Tensor> cache): the model's inputs
    }
    if (rt.isDevice(t)) {
      if (scope.isModelInstanceMethod()
          && p.getEnclosingElement() instanceof ExecutableElement m
          && (ctx.givenTheModelsDevice(m, m.getParameters().indexOf(p))
              || ctx.callSites().givesTheReceiversPlace(m, m.getParameters().indexOf(p)))) {
        return Value.on(
            thisValue.place()); // setCache(n, x.device()) from every call: the model's device
      }
      return Value.on(Place.symbol(p, p.getSimpleName().toString()));
    }
    return Value.UNKNOWN;
  }

  /**
   * Whether a method moves or converts tensors ({@code to(...)}, {@code cuda()}): then the
   * containers it is given may hold tensors from anywhere ({@code batch.get("ids").to(device())}),
   * not only the model's inputs.
   */
  static boolean movesTensors(ExecutableElement m, AnalysisContext ctx) {
    return moves(m, ctx, true);
  }

  /**
   * Whether a method may move tensors to a device ({@link #movesTensors}, not counting {@code
   * x.to(DType.FLOAT32)}, which only converts): the containers it is given may hold tensors from
   * anywhere.
   */
  static boolean movesToADevice(ExecutableElement m, AnalysisContext ctx) {
    return moves(m, ctx, false);
  }

  private static boolean moves(ExecutableElement m, AnalysisContext ctx, boolean conversions) {
    com.sun.source.tree.MethodTree tree = m == null ? null : ctx.trees().getTree(m);
    return tree == null
        || tree.getBody() == null
        || TreeSearch.contains(
            tree.getBody(),
            x ->
                x instanceof MethodInvocationTree call
                    && call.getMethodSelect() instanceof MemberSelectTree select
                    && ((select.getIdentifier().contentEquals("to")
                            && (conversions || !convertsOnly(call)))
                        || select.getIdentifier().contentEquals("cuda")),
            x -> x instanceof com.sun.source.tree.ClassTree);
  }

  /** Whether a {@code to(..)} only converts, {@code x.to(DType.FLOAT32)}: it moves nothing. */
  private static boolean convertsOnly(MethodInvocationTree to) {
    if (to.getArguments().size() != 1) {
      return false;
    }
    ExpressionTree a = skipParens(to.getArguments().get(0));
    return (a instanceof MemberSelectTree constant
            && constant.getExpression() instanceof IdentifierTree type
            && type.getName().contentEquals("DType"))
        || (a instanceof MethodInvocationTree call // x.to(sequence.dtype())
            && call.getArguments().isEmpty()
            && call.getMethodSelect() instanceof MemberSelectTree select
            && select.getIdentifier().contentEquals("dtype"));
  }

  // ================================================================== statements

  private void statement(TreePath path) {
    if (!env.reachable()) {
      return;
    }
    Tree t = path.getLeaf();
    switch (t.getKind()) {
      case BLOCK -> {
        for (StatementTree s : ((BlockTree) t).getStatements()) {
          statement(new TreePath(path, s));
        }
      }
      case VARIABLE -> variable(path, (VariableTree) t);
      case EXPRESSION_STATEMENT -> expressionStatement(path, (ExpressionStatementTree) t);
      case IF -> ifStatement(path, (IfTree) t);
      case WHILE_LOOP, DO_WHILE_LOOP, FOR_LOOP, ENHANCED_FOR_LOOP -> loop(path);
      case LABELED_STATEMENT -> labeled(path, (LabeledStatementTree) t);
      case SWITCH -> switchStatement(path, (SwitchTree) t);
      case TRY -> tryStatement(path, (TryTree) t);
      case RETURN -> returnStatement(path, (ReturnTree) t);
      case THROW -> {
        expression(new TreePath(path, ((ThrowTree) t).getExpression()));
        env = Env.unreachable();
      }
      case YIELD -> yieldStatement(path, (YieldTree) t);
      case BREAK -> jump(((BreakTree) t).getLabel(), false);
      case CONTINUE -> jump(((ContinueTree) t).getLabel(), true);
      case SYNCHRONIZED -> {
        expression(new TreePath(path, ((SynchronizedTree) t).getExpression()));
        statement(new TreePath(path, ((SynchronizedTree) t).getBlock()));
      }
      default -> {} // a statement without tensors to follow: a local class's body is analysed on
        // its own
    }
  }

  private void variable(TreePath path, VariableTree v) {
    Element e = ctx.trees().getElement(path);
    if (v.getInitializer() == null || e == null) {
      return;
    }
    TreePath init = new TreePath(path, v.getInitializer());
    Value value = expression(init);
    if (aliased(init)) {
      value = Value.UNKNOWN; // Model m = net: a move through either moves both
    }
    if (rt.isDevice(e.asType())) {
      value = deviceVariable(value, e, v, v.getInitializer());
    }
    String on = rt.declaredDevice(e);
    if (on != null && rt.isTensor(e.asType())) {
      Place declared = scope.declaredPlace(on);
      checks.contract(
          init,
          value,
          declared,
          () -> "the variable " + e.getSimpleName() + " (@OnDevice(\"" + on + "\"))");
      value = value.withPlace(declared);
    }
    env.put(e, named(value, e));
    if (!Place.CPU.equals(value.place())) {
      storedMoveNeverRead(path, v, e); // a copy to the host kept aside is another matter
    }
  }

  /**
   * {@code Tensor moved = x.to(device);} never read, {@code x} read afterwards: {@link
   * DiscardedMoveCheck#storedMoveNeverRead}.
   */
  private void storedMoveNeverRead(TreePath declaration, VariableTree v, Element stored) {
    ExpressionTree init = skipParens(v.getInitializer());
    if (!(init instanceof MethodInvocationTree call)
        || lastCall != init
        || lastCallSemantics == null
        || lastCallSemantics.kind != MethodSemantics.Kind.MOVE
        || !(call.getMethodSelect() instanceof MemberSelectTree select)
        || !(skipParens(select.getExpression()) instanceof IdentifierTree)) {
      return;
    }
    TreePath initPath = new TreePath(declaration, v.getInitializer());
    Element original =
        ctx.trees()
            .getElement(
                new TreePath(
                    new TreePath(new TreePath(initPath, call), select), select.getExpression()));
    if (original == null
        || !isLocal(original)
        || !rt.isTensor(original.asType())
        || VariableUses.readAfter(ctx, declaration, stored)
        || !usedInComputationAfter(declaration, original)) {
      return;
    }
    checks.storedMoveNeverRead(
        new TreePath(initPath, call), call, stored.getSimpleName(), original.getSimpleName());
  }

  /**
   * The calls on a tensor that do not compute with it where it is: moves, pinning, reads of its
   * shape or device.
   */
  private static final java.util.Set<String> NOT_COMPUTING =
      java.util.Set.of(
          "to",
          "cpu",
          "cuda",
          "pinMemory",
          "size",
          "shape",
          "dim",
          "device",
          "dtype",
          "isCuda",
          "numel");

  /**
   * Whether {@code variable} is used after {@code declaration}, in the rest of its method, in a
   * computation: passed to a call or the receiver of an op other than a move or a look at its
   * shape.
   */
  private boolean usedInComputationAfter(TreePath declaration, Element variable) {
    com.sun.source.util.SourcePositions positions = ctx.trees().getSourcePositions();
    long end = positions.getEndPosition(ctx.unit(), declaration.getLeaf());
    TreePath method = declaration;
    while (method != null && !(method.getLeaf() instanceof com.sun.source.tree.MethodTree)) {
      method = method.getParentPath();
    }
    if (method == null) {
      return false;
    }
    boolean[] used = {false};
    new com.sun.source.util.TreePathScanner<Void, Void>() {
      @Override
      public Void visitIdentifier(IdentifierTree id, Void unused) {
        if (!used[0]
            && positions.getStartPosition(ctx.unit(), id) > end
            && variable.equals(ctx.trees().getElement(getCurrentPath()))) {
          Tree parent = getCurrentPath().getParentPath().getLeaf();
          used[0] =
              !(parent instanceof MemberSelectTree select
                      && NOT_COMPUTING.contains(select.getIdentifier().toString()))
                  && !(parent instanceof AssignmentTree a && a.getVariable() == id);
        }
        return null;
      }
    }.scan(method, null);
    return used[0];
  }

  /**
   * The value a {@code Device} variable takes: the device it is given, under the variable's name;
   * or, where that device is only known at run time ({@code Cuda.isAvailable() ? Device.cuda() :
   * Device.cpu()}, {@code Device.parse(args[0])}), a symbolic device of its own, as a parameter's,
   * identified by the declaration or assignment that gives it.
   */
  private Value deviceVariable(
      Value value, Element variable, Tree assignment, ExpressionTree given) {
    String name = variable.getSimpleName().toString();
    Place place = value.place();
    if (place.isKnown()) {
      return Value.on(place.named(name));
    }
    return isRunTimeChoice(skipParens(given)) ? Value.on(Place.symbol(assignment, name)) : value;
  }

  /**
   * Whether a {@code Device} expression chooses the device at run time: a choice between devices
   * ({@code ?:}, a {@code switch}), or a runtime method that says how it picks one
   * ({@code @ReturnsDevice}: {@code Device.parse(args[0])}, {@code Device.cuda(rank)}). The result
   * of any other method (a getter, a record's accessor) may be a device fixed by design, such as
   * the CPU.
   */
  private boolean isRunTimeChoice(ExpressionTree e) {
    if (e instanceof ConditionalExpressionTree || e instanceof SwitchExpressionTree) {
      return true;
    }
    return e instanceof MethodInvocationTree
        && lastCall == e
        && lastCallSemantics != null
        && lastCallSemantics.kind == MethodSemantics.Kind.RETURNS_DEVICE;
  }

  /** Remembers the variable's name in a value whose origin has none (for messages). */
  private static Value named(Value v, Element e) {
    return v.origin() == Value.Origin.BATCH && v.originName() == null
        ? v.withOrigin(v.origin(), v.originPath(), e.getSimpleName().toString())
        : v;
  }

  private void expressionStatement(TreePath path, ExpressionStatementTree s) {
    TreePath ep = new TreePath(path, s.getExpression());
    Value v = expression(ep);
    ExpressionTree e = skipParens(s.getExpression());
    MethodSemantics sem = lastCall == e ? lastCallSemantics : null;
    if (sem != null && sem.pure()) {
      checks.discardedResult(new TreePath(path, e), (MethodInvocationTree) e, sem);
      if (sem.kind == MethodSemantics.Kind.MOVE) {
        assumeAssigned((MethodInvocationTree) e, path, v);
      }
    }
  }

  /**
   * After {@code xb.to(device);} is reported as a discarded move, the rest of the method is read as
   * if the fix were made ({@code xb = xb.to(device)}), so that the one mistake is not reported
   * again where {@code xb} is used.
   */
  private void assumeAssigned(MethodInvocationTree move, TreePath statement, Value moved) {
    if (move.getMethodSelect() instanceof MemberSelectTree select
        && skipParens(select.getExpression()) instanceof IdentifierTree id) {
      Element e =
          ctx.trees()
              .getElement(new TreePath(new TreePath(new TreePath(statement, move), select), id));
      if (e != null && isLocal(e) && env.get(e) != null) {
        env.put(e, named(moved, e));
      }
    }
  }

  private void ifStatement(TreePath path, IfTree t) {
    TreePath condition = new TreePath(path, t.getCondition());
    ExpressionTree test = skipParens(t.getCondition());
    Boolean holds = nullTestOfAParameter(path, test);
    if (holds != null) {
      // if (sequenceLength == null) sequenceLength = Tensor.of(lengths); with every call giving
      // null: only the branch taken runs
      expression(condition);
      StatementTree taken = holds ? t.getThenStatement() : t.getElseStatement();
      if (taken != null) {
        statement(new TreePath(path, taken));
      }
      return;
    }
    boolean negated = test instanceof UnaryTree u && u.getKind() == Tree.Kind.LOGICAL_COMPLEMENT;
    Element checked =
        readinessChecked(
            condition, negated ? skipParens(((UnaryTree) test).getExpression()) : test);
    Value pending = checked == null ? null : env.get(checked);
    expression(condition);
    Env before = env.copy();
    if (negated && pending != null) {
      env.put(checked, pending); // if (!host.isReady()) { host.item() }: not ready on this branch
    }
    statement(new TreePath(path, t.getThenStatement()));
    Env afterThen = env;
    env = before;
    if (!negated && pending != null) {
      env.put(checked, pending); // if (host.isReady()) { ... } else { host.item() }
    }
    if (t.getElseStatement() != null) {
      statement(new TreePath(path, t.getElseStatement()));
    }
    Element ensured = t.getElseStatement() == null ? movedUnlessThere(path, t) : null;
    Value moved = ensured == null ? null : afterThen.get(ensured);
    env = joinChoosing(t, afterThen, env);
    if (moved != null && env.reachable()) {
      env.put(ensured, moved); // if (!h.device().equals(d)) h = h.to(d);: on d either way
    }
  }

  /**
   * Whether {@code test}, {@code p == null} or {@code p != null} for a parameter {@code p} that
   * every call gives {@code null} ({@link CallSites#givesNullEverywhere}) and that the method
   * assigns nowhere but in the {@code if} at {@code ifPath}, holds; null for any other test.
   */
  private Boolean nullTestOfAParameter(TreePath ifPath, ExpressionTree test) {
    if (method == null
        || !(test instanceof BinaryTree b)
        || (b.getKind() != Tree.Kind.EQUAL_TO && b.getKind() != Tree.Kind.NOT_EQUAL_TO)) {
      return null;
    }
    boolean leftNull = b.getLeftOperand().getKind() == Tree.Kind.NULL_LITERAL;
    if (leftNull == (b.getRightOperand().getKind() == Tree.Kind.NULL_LITERAL)) {
      return null;
    }
    ExpressionTree tested = skipParens(leftNull ? b.getRightOperand() : b.getLeftOperand());
    Element p =
        tested instanceof IdentifierTree
            ? ctx.trees().getElement(new TreePath(ifPath, tested))
            : null;
    int index = p == null ? -1 : method.getParameters().indexOf(p);
    TreePath body = ctx.pathOf(method);
    if (index < 0
        || !ctx.callSites().givesNullEverywhere(method, index)
        || body == null
        || TreeSearch.contains(
            body.getLeaf(),
            x ->
                x instanceof AssignmentTree a
                    && skipParens(a.getVariable()) instanceof IdentifierTree id
                    && id.getName().equals(p.getSimpleName()),
            x -> x == ifPath.getLeaf() || x instanceof com.sun.source.tree.ClassTree)) {
      return null;
    }
    return b.getKind() == Tree.Kind.EQUAL_TO;
  }

  /**
   * The local that {@code if (!h.device().equals(d)) h = h.to(d);} moves to {@code d} unless it is
   * there already, so that it is on {@code d} after the statement whichever branch ran; or null.
   */
  private Element movedUnlessThere(TreePath path, IfTree t) {
    if (!(skipParens(t.getCondition()) instanceof UnaryTree not)
        || not.getKind() != Tree.Kind.LOGICAL_COMPLEMENT
        || !(skipParens(not.getExpression()) instanceof MethodInvocationTree equals)
        || equals.getArguments().size() != 1
        || !(equals.getMethodSelect() instanceof MemberSelectTree eq)
        || !eq.getIdentifier().contentEquals("equals")) {
      return null;
    }
    StatementTree then = t.getThenStatement();
    if (then instanceof BlockTree b && b.getStatements().size() == 1) {
      then = b.getStatements().get(0);
    }
    if (!(then instanceof ExpressionStatementTree s)
        || !(s.getExpression() instanceof AssignmentTree a)
        || !(a.getVariable() instanceof IdentifierTree target)
        || !(skipParens(a.getExpression()) instanceof MethodInvocationTree move)
        || move.getArguments().size() != 1
        || !(move.getMethodSelect() instanceof MemberSelectTree to)
        || !to.getIdentifier().contentEquals("to")
        || !(skipParens(to.getExpression()) instanceof IdentifierTree source)
        || !source.getName().equals(target.getName())) {
      return null;
    }
    String device = move.getArguments().get(0).toString();
    ExpressionTree left = skipParens(eq.getExpression());
    ExpressionTree right = skipParens(equals.getArguments().get(0));
    boolean matches =
        (isDeviceOf(left, target) && right.toString().equals(device))
            || (isDeviceOf(right, target) && left.toString().equals(device));
    if (!matches) {
      return null;
    }
    Element e =
        ctx.trees().getElement(new TreePath(new TreePath(new TreePath(path, s), a), target));
    return e != null && isLocal(e) ? e : null;
  }

  /** {@code h.device()}. */
  private static boolean isDeviceOf(ExpressionTree e, IdentifierTree variable) {
    return e instanceof MethodInvocationTree call
        && call.getArguments().isEmpty()
        && call.getMethodSelect() instanceof MemberSelectTree select
        && select.getIdentifier().contentEquals("device")
        && skipParens(select.getExpression()) instanceof IdentifierTree id
        && id.getName().equals(variable.getName());
  }

  /**
   * The local whose pending copy to the host {@code test} asks about ({@code host} in {@code
   * host.isReady()}, a {@code @ReadinessCheck} method), or null: on the branch where it is not
   * ready, the copy is still pending.
   */
  private Element readinessChecked(TreePath condition, ExpressionTree test) {
    if (!(test instanceof MethodInvocationTree call)
        || !call.getArguments().isEmpty()
        || !(call.getMethodSelect() instanceof MemberSelectTree select)
        || !(skipParens(select.getExpression()) instanceof IdentifierTree)) {
      return null;
    }
    Element method = ctx.trees().getElement(new TreePath(condition, select));
    if (!(method instanceof ExecutableElement m)
        || !rt.annotations().has(m, ReadinessCheck.class)) {
      return null;
    }
    Element receiver =
        ctx.trees()
            .getElement(
                new TreePath(new TreePath(condition, select), skipParens(select.getExpression())));
    Value v = receiver == null || !isLocal(receiver) ? null : env.get(receiver);
    return v != null && v.pendingHostCopy() ? receiver : null;
  }

  /**
   * The device a choice ({@code if}, {@code switch}) gives {@code Device} locals whose paths give
   * them devices {@code a} and {@code b}: one per pair, so that two locals given the same devices
   * on each path ({@code evalDevice = device} in both branches) hold the same device after it.
   */
  private record DeviceChoice(Tree at, Place a, Place b) {}

  /**
   * The join of the paths of a choice ({@code if}, {@code switch}), where a {@code Device} local
   * that they give different devices fixed or chosen in this method ({@code if (Cuda.isAvailable())
   * device = Device.cuda(); else device = Device.cpu();}) holds a device chosen at run time after
   * it, of its own, as with {@code ?:}; and a tensor local on the CPU on one path and on a device
   * on the other is on either by the path taken ({@link Place#chosen}).
   */
  private Env joinChoosing(Tree at, Env a, Env b) {
    Env joined = a.join(b);
    for (int i = 0; i < joined.size(); i++) {
      if (joined.valueAt(i).place().kind() != Place.Kind.UNKNOWN) {
        continue;
      }
      Element variable = joined.variableAt(i);
      Value x = a.get(variable);
      Value y = b.get(variable);
      if (x != null
          && y != null
          && rt.isTensor(variable.asType())
          && !x.zeroDim()
          && !y.zeroDim()) {
        // if (useGpu) x = x.to(device): on the CPU or the device, by the path taken.
        joined.put(variable, joined.valueAt(i).withPlace(Place.chosen(x.place(), y.place())));
        continue;
      }
      if (x != null
          && y != null
          && x.place().isChoiceInMethod()
          && y.place().isChoiceInMethod()
          && rt.isDevice(variable.asType())) {
        joined.put(
            variable,
            Value.on(
                Place.symbol(
                    new DeviceChoice(at, x.place(), y.place()),
                    variable.getSimpleName().toString())));
      }
    }
    return joined;
  }

  private void labeled(TreePath path, LabeledStatementTree t) {
    String label = t.getLabel().toString();
    Tree body = t.getStatement();
    switch (body.getKind()) {
      case WHILE_LOOP, DO_WHILE_LOOP, FOR_LOOP, ENHANCED_FOR_LOOP -> {
        pendingLabel = label;
        statement(new TreePath(path, body));
        return;
      }
      default -> {
        Frame f = new Frame(t, label, false);
        frames.push(f);
        statement(new TreePath(path, body));
        frames.pop();
        env = joinAll(env, f.breaks);
      }
    }
  }

  private void jump(CharSequence label, boolean isContinue) {
    for (Frame f : frames) {
      boolean matches =
          label == null
              ? (f.loop || (!isContinue && f.tree instanceof SwitchTree))
              : label.toString().equals(f.label);
      if (matches) {
        (isContinue ? f.continues : f.breaks).add(env.copy());
        break;
      }
    }
    env = Env.unreachable();
  }

  private void returnStatement(TreePath path, ReturnTree t) {
    if (t.getExpression() != null) {
      TreePath ep = new TreePath(path, t.getExpression());
      Value v = expression(ep);
      returned = returned == null ? v.located() : returned.join(v.located());
      String on = method == null ? null : rt.returnDevice(method);
      if (on != null && rt.isTensor(method.getReturnType())) {
        checks.contract(
            ep,
            v,
            scope.declaredPlace(on),
            () -> "the result of " + method.getSimpleName() + " (@OnDevice(\"" + on + "\"))");
      } else if (method != null && rt.isTensor(method.getReturnType())) {
        checks.returned(ep, v, method);
      }
    }
    env = Env.unreachable();
  }

  private void switchStatement(TreePath path, SwitchTree t) {
    cases(path, t.getExpression(), t.getCases(), t);
  }

  /** A switch expression: its value is the join of its cases' values. */
  private Value switchExpression(TreePath path, SwitchExpressionTree t) {
    Value result = null;
    for (Value v : cases(path, t.getExpression(), t.getCases(), t).yields) {
      result = result == null ? v : result.join(v);
    }
    return result == null ? Value.UNKNOWN : result;
  }

  /**
   * The cases of a switch statement or expression, each from the environment after the selector (or
   * the one falling through into it), the environments where they end joined. Returns the switch's
   * frame, whose {@code yields} hold the values of an expression's cases.
   */
  private Frame cases(
      TreePath path, ExpressionTree selector, List<? extends CaseTree> cases, Tree t) {
    expression(new TreePath(path, selector));
    Frame f = new Frame(t, null, false);
    frames.push(f);
    Env entry = env.copy();
    Env fallthrough = Env.unreachable();
    Env exits = Env.unreachable();
    boolean hasDefault = false;
    for (CaseTree c : cases) {
      TreePath cp = new TreePath(path, c);
      hasDefault |= c.getExpressions().isEmpty();
      env = entry.join(fallthrough);
      fallthrough = Env.unreachable();
      if (c.getBody() instanceof ExpressionTree e) {
        f.yields.add(expression(new TreePath(cp, e)));
        exits = joinChoosing(t, exits, env);
      } else if (c.getBody() != null) {
        statement(new TreePath(cp, c.getBody()));
        exits = joinChoosing(t, exits, env);
      } else {
        for (StatementTree s : c.getStatements()) {
          statement(new TreePath(cp, s));
        }
        fallthrough = env;
      }
    }
    frames.pop();
    env = joinChoosing(t, exits, fallthrough);
    for (Env b : f.breaks) {
      env = joinChoosing(t, env, b);
    }
    if (!hasDefault && t instanceof SwitchTree) {
      env = joinChoosing(t, env, entry);
    }
    return f;
  }

  private void yieldStatement(TreePath path, YieldTree t) {
    Value v = expression(new TreePath(path, t.getValue()));
    for (Frame f : frames) {
      if (f.tree instanceof SwitchExpressionTree) {
        f.yields.add(v);
        f.breaks.add(env.copy());
        break;
      }
    }
    env = Env.unreachable();
  }

  private void tryStatement(TreePath path, TryTree t) {
    for (Tree r : t.getResources()) {
      if (r instanceof VariableTree variableTree) {
        variable(new TreePath(path, r), variableTree);
      } else {
        expression(new TreePath(path, r));
      }
    }
    Env before = env.copy();
    statement(new TreePath(path, t.getBlock()));
    Env afterTry = env;
    Env exits = afterTry;
    Env catchEntry = before.join(afterTry);
    for (CatchTree c : t.getCatches()) {
      env = catchEntry.copy();
      statement(new TreePath(new TreePath(path, c), c.getBlock()));
      exits = exits.join(env);
    }
    env = exits;
    if (t.getFinallyBlock() != null) {
      // The statement completes normally only through the finally block after a normal exit of the
      // try or a catch: the block runs from those exits. Where none is normal, it runs after an
      // exception, from the state at any point of the try, and nothing follows.
      boolean normal = env.reachable();
      env = normal ? env : catchEntry.copy();
      statement(new TreePath(path, t.getFinallyBlock()));
      if (!normal) {
        env = Env.unreachable();
      }
    }
  }

  // ------------------------------------------------------------------ loops

  private void loop(TreePath path) {
    Tree t = path.getLeaf();
    String label = pendingLabel;
    pendingLabel = null;
    boolean batchLoop = false;
    Value element = Value.UNKNOWN;
    if (t instanceof ForLoopTree forLoopTree) {
      for (StatementTree s : forLoopTree.getInitializer()) {
        statement(new TreePath(path, s));
      }
    } else if (t instanceof EnhancedForLoopTree f) {
      TreePath ep = new TreePath(path, f.getExpression());
      Value iterated = expression(ep);
      batchLoop = rt.hasInherited(ctx.trees().getTypeMirror(ep), BatchSource.class);
      if (batchLoop) {
        element =
            Value.on(Place.CPU)
                .withOrigin(
                    Value.Origin.BATCH,
                    new TreePath(path, f.getVariable()),
                    f.getVariable().getName().toString());
        if (PageableLoaders.pageable(ctx, ep)) {
          element =
              element.withPinned(
                  Value.Tri.NO); // DataLoader.builder(ds)...build() without pinMemory(true)
        }
      } else if (containers.holdsTensors(ctx.trees().getTypeMirror(ep))) {
        element =
            Value.on(iterated.place()); // for (Tensor t : tensors): where the list's tensors are
      }
    }
    batchLoop |= batchIterators.loopTakesBatches(path, t) || ctx.stepsEveryIteration(path);
    Env head = env.copy();
    Tree outerBatchLoop = batchLoopTree;
    if (batchLoop) {
      batchDepth++;
      batchLoopTree = t;
    }
    // The findings of the first pass hold for the first iteration, which starts from the values
    // the loop is entered with, where that iteration certainly reaches them (FirstIteration);
    // those of the last pass hold for every iteration. The passes in between see the values of
    // some iterations joined, and add nothing: their findings are dropped.
    Env afterFirst = null;
    for (int pass = 1; ; pass++) {
      ctx.pushBuffer();
      Frame frame = new Frame(t, label, true);
      frames.push(frame);
      env = head.copy();
      Env exit = onePass(path, frame, element);
      frames.pop();
      Env back = joinAll(env, frame.continues);
      Env next = head.join(back);
      if (pass == 1 && carriesTheCpu(head, back)) {
        afterFirst = back;
      }
      if (next.equals(head) || pass >= MAX_LOOP_PASSES) {
        ctx.commitBuffer();
        env = joinAll(exit, frame.breaks);
        break;
      }
      if (pass == 1) {
        ctx.commitBuffer(f -> FirstIteration.reaches(path, f.trigger()));
      } else {
        ctx.discardBuffer();
      }
      head = next;
    }
    if (afterFirst != null) {
      secondIteration(path, label, element, afterFirst);
    }
    if (batchLoop) {
      batchDepth--;
    }
    batchLoopTree = outerBatchLoop;
  }

  /**
   * The loop's second iteration, from the values the first one leaves, where a variable that was on
   * a device when the loop began is on the CPU then ({@code evalMasks = Tensor.of(values, n, 1)} at
   * the end of an evaluation loop that passed it to the model): the joined passes see it nowhere,
   * so this pass reports the certain conflicts it finds where that iteration certainly gets to. It
   * runs after the loop's own findings are kept, which win for an op both find, and leaves the
   * state as the loop left it.
   */
  private void secondIteration(TreePath path, String label, Value element, Env start) {
    Env after = env;
    ctx.pushBuffer();
    Frame frame = new Frame(path.getLeaf(), label, true);
    frames.push(frame);
    env = start.copy();
    laterIteration = true;
    try {
      onePass(path, frame, element);
    } finally {
      laterIteration = false;
      frames.pop();
    }
    ctx.commitBuffer(
        f ->
            f.finding().check() == CheckId.MIXED_DEVICES
                && f.finding().severity() == Severity.ERROR
                && FirstIteration.reaches(path, f.trigger()));
    env = after;
  }

  /**
   * Whether a variable on a known device when the loop began is on the CPU after its first
   * iteration.
   */
  private static boolean carriesTheCpu(Env head, Env back) {
    if (!back.reachable()) {
      return false;
    }
    for (int i = 0; i < head.size(); i++) {
      Place before = head.valueAt(i).place();
      Value after = back.get(head.variableAt(i));
      if ((before.kind() == Place.Kind.SYMBOL || before.kind() == Place.Kind.FIXED)
          && after != null
          && Place.CPU.equals(after.place())
          && !after.zeroDim()) {
        return true;
      }
    }
    return false;
  }

  /** Whether the pass being interpreted is a loop's second iteration ({@link #secondIteration}). */
  @Override
  public boolean laterIteration() {
    return laterIteration;
  }

  /**
   * One pass over the loop: condition, body, update. Returns the environment where the loop exits
   * normally.
   */
  private Env onePass(TreePath path, Frame frame, Value element) {
    Tree t = path.getLeaf();
    return switch (t.getKind()) {
      case WHILE_LOOP -> {
        WhileLoopTree w = (WhileLoopTree) t;
        TreePath condition = new TreePath(path, w.getCondition());
        expression(condition);
        Env exit = Boolean.TRUE.equals(constant(condition)) ? Env.unreachable() : env.copy();
        statement(new TreePath(path, w.getStatement()));
        yield exit;
      }
      case DO_WHILE_LOOP -> {
        DoWhileLoopTree d = (DoWhileLoopTree) t;
        statement(new TreePath(path, d.getStatement()));
        env = joinAll(env, frame.continues);
        frame.continues.clear();
        TreePath condition = new TreePath(path, d.getCondition());
        expression(condition);
        yield Boolean.TRUE.equals(constant(condition)) ? Env.unreachable() : env.copy();
      }
      case FOR_LOOP -> {
        ForLoopTree f = (ForLoopTree) t;
        TreePath condition = f.getCondition() == null ? null : new TreePath(path, f.getCondition());
        if (condition != null) {
          expression(condition);
        }
        Env exit =
            condition == null || Boolean.TRUE.equals(constant(condition))
                ? Env.unreachable()
                : env.copy();
        statement(new TreePath(path, f.getStatement()));
        env = joinAll(env, frame.continues);
        frame.continues.clear();
        for (ExpressionStatementTree u : f.getUpdate()) {
          statement(new TreePath(path, u));
        }
        yield exit;
      }
      default -> {
        EnhancedForLoopTree f = (EnhancedForLoopTree) t;
        Env exit = env.copy();
        TreePath vp = new TreePath(path, f.getVariable());
        Element var = ctx.trees().getElement(vp);
        if (var != null) {
          env.put(var, element);
        }
        statement(new TreePath(path, f.getStatement()));
        yield exit;
      }
    };
  }

  private static Env joinAll(Env env, List<Env> others) {
    Env result = env;
    for (Env o : others) {
      result = result.join(o);
    }
    return result;
  }

  // ================================================================== expressions

  /**
   * Evaluates an expression and returns its value; records it for a variable (what a fix may name
   * as a device source).
   */
  Value expression(TreePath path) {
    Value v = evaluate(path);
    Tree leaf = path.getLeaf();
    if (leaf instanceof IdentifierTree || leaf instanceof MemberSelectTree) {
      record(leaf, v);
    }
    return v;
  }

  /**
   * Records the value of a variable or an argument for {@link #valueOf}. Most values are unknown
   * (not tensors), and an unknown value is recorded by its absence.
   */
  private void record(Tree t, Value v) {
    if (!v.equals(Value.UNKNOWN)) {
      values.put(t, v);
    } else if (!values.isEmpty()) {
      values.remove(t);
    }
  }

  /** The value a variable or a call's argument had when it was last evaluated. */
  @Override
  public Value valueOf(Tree t) {
    Value v = values.get(t);
    return v == null ? Value.UNKNOWN : v;
  }

  private Value evaluate(TreePath path) {
    Tree t = path.getLeaf();
    return switch (t.getKind()) {
      case PARENTHESIZED -> expression(new TreePath(path, ((ParenthesizedTree) t).getExpression()));
      case TYPE_CAST -> expression(new TreePath(path, ((TypeCastTree) t).getExpression()));
      case IDENTIFIER -> identifier(path);
      case MEMBER_SELECT -> memberSelect(path, (MemberSelectTree) t);
      case METHOD_INVOCATION -> invocation(path, (MethodInvocationTree) t);
      case NEW_CLASS -> newClass(path, (NewClassTree) t);
      case ASSIGNMENT -> assignment(path, (AssignmentTree) t);
      case SWITCH_EXPRESSION -> switchExpression(path, (SwitchExpressionTree) t);
      case CONDITIONAL_EXPRESSION -> conditional(path, (ConditionalExpressionTree) t);
      case LAMBDA_EXPRESSION -> {
        lambda(path, (LambdaExpressionTree) t);
        yield Value.UNKNOWN;
      }
      case PLUS -> {
        BinaryTree b = (BinaryTree) t;
        concatenation(path, b.getLeftOperand(), b.getRightOperand());
        yield Value.UNKNOWN;
      }
      case PLUS_ASSIGNMENT -> {
        CompoundAssignmentTree c = (CompoundAssignmentTree) t;
        concatenation(path, c.getVariable(), c.getExpression());
        yield Value.UNKNOWN;
      }
      case MEMBER_REFERENCE -> {
        memberReference(path, (MemberReferenceTree) t);
        yield Value.UNKNOWN;
      }
      case NEW_ARRAY -> newArray(path, (NewArrayTree) t);
      case ARRAY_ACCESS -> arrayAccess(path, (com.sun.source.tree.ArrayAccessTree) t);
      case CLASS -> {
        yield Value.UNKNOWN;
      }
      // No tensor yet: joined with the tensor assigned later (Tensor shown = null; ... shown =
      // x.cpu()),
      // the variable has that tensor's device, as where it is null it cannot be used.
      case NULL_LITERAL -> Value.on(Place.NONE);
      default -> {
        operands(path, t);
        yield Value.UNKNOWN;
      }
    };
  }

  /**
   * An array creation: a model that was never moved, put in an array, may be moved through it. An
   * array of tensors is where its elements are ({@link TensorContainers}): nothing yet when made
   * empty ({@code new Tensor[n]}).
   */
  private Value newArray(TreePath path, NewArrayTree t) {
    for (ExpressionTree d : t.getDimensions()) {
      expression(new TreePath(path, d));
    }
    List<Value> elements = new ArrayList<>();
    if (t.getInitializers() != null) {
      for (ExpressionTree i : t.getInitializers()) {
        TreePath ip = new TreePath(path, i);
        Value v = expression(ip);
        if (v.partlyUnmoved()) {
          escaped(ip);
        }
        Value element = Value.on(v.place()).withZeroDim(v.zeroDim());
        elements.add(
            v.isDefaultDeviceFactory() // new Tensor[] {state, state}, made in a model's code
                ? element.withOrigin(v.origin(), v.originPath(), v.originName())
                : element);
      }
    }
    return containers.holdsTensors(ctx.trees().getTypeMirror(path))
        ? Value.array(elements)
        : Value.UNKNOWN;
  }

  /**
   * {@code parts[i]}: where element {@code i} is, for a constant {@code i}, else where the array's
   * tensors are.
   */
  private Value arrayAccess(TreePath path, com.sun.source.tree.ArrayAccessTree t) {
    TreePath array = new TreePath(path, t.getExpression());
    Value v = expression(array);
    TreePath index = new TreePath(path, t.getIndex());
    expression(index);
    if (!containers.holdsTensors(ctx.trees().getTypeMirror(array))) {
      return Value.UNKNOWN;
    }
    return constant(index) instanceof Integer i ? v.element(i) : Value.on(v.place());
  }

  /**
   * Evaluates the operands of an expression whose own value is not a tensor (arithmetic, literals,
   * ...).
   */
  private void operands(TreePath path, Tree t) {
    if (t instanceof BinaryTree b) {
      expression(new TreePath(path, b.getLeftOperand()));
      expression(new TreePath(path, b.getRightOperand()));
    } else if (t instanceof UnaryTree u) {
      expression(new TreePath(path, u.getExpression()));
    } else if (!(t instanceof LiteralTree)) {
      evaluateChildren(path);
    }
  }

  private Value conditional(TreePath path, ConditionalExpressionTree c) {
    expression(new TreePath(path, c.getCondition()));
    Value a = expression(new TreePath(path, c.getTrueExpression()));
    Value b = expression(new TreePath(path, c.getFalseExpression()));
    return a.join(b);
  }

  /**
   * A {@code +} or {@code +=}, which prints a tensor operand when it joins strings. The type of the
   * expression is looked at only where printing would be reported: in a batch loop, or for the
   * result of a non-blocking copy to the host.
   */
  private void concatenation(TreePath path, ExpressionTree left, ExpressionTree right) {
    TreePath leftPath = new TreePath(path, left);
    TreePath rightPath = new TreePath(path, right);
    Value l = expression(leftPath);
    Value r = expression(rightPath);
    if (inBatchLoop() || l.pendingHostCopy() || r.pendingHostCopy()) {
      boolean inString = isString(path);
      if (path.getLeaf().getKind() == Tree.Kind.PLUS) {
        printed(leftPath, l, inString);
      }
      printed(rightPath, r, inString);
    }
  }

  /** A tensor turned into a string: a read on the host. */
  private void printed(TreePath path, Value v, boolean inString) {
    if (inString && rt.isTensor(ctx.trees().getTypeMirror(path))) {
      checks.read(path, v);
      checks.printed(path, v);
    }
  }

  private boolean isString(TreePath path) {
    return rt.isString(ctx.trees().getTypeMirror(path));
  }

  /** Evaluates the subexpressions of an expression the analysis has no rule for. */
  private void evaluateChildren(TreePath path) {
    new com.sun.source.util.TreeScanner<Void, Void>() {
      @Override
      public Void scan(Tree tree, Void unused) {
        if (tree == null) {
          return null;
        }
        if (tree instanceof ExpressionTree && tree != path.getLeaf()) {
          expression(new TreePath(path, tree));
          return null;
        }
        return super.scan(tree, null);
      }

      @Override
      public Void visitClass(com.sun.source.tree.ClassTree node, Void unused) {
        return null; // a class declared here: its bodies are analysed on their own
      }
    }.scan(path.getLeaf(), null);
  }

  private Value identifier(TreePath path) {
    Element e = ctx.trees().getElement(path);
    if (e == null) {
      return Value.UNKNOWN;
    }
    return switch (e.getKind()) {
      case LOCAL_VARIABLE, PARAMETER, EXCEPTION_PARAMETER, RESOURCE_VARIABLE, BINDING_VARIABLE -> {
        Value v = env.get(e);
        yield v == null ? Value.UNKNOWN : v;
      }
      case FIELD ->
          ctx.isThisOrSuper(e)
              ? thisValue
              : scope.field(ctx, (VariableElement) e, thisValue, path.getLeaf());
      default -> Value.UNKNOWN;
    };
  }

  private Value memberSelect(TreePath path, MemberSelectTree t) {
    Element e = ctx.trees().getElement(path);
    TreePath receiverPath = new TreePath(path, t.getExpression());
    Element receiverElement = ctx.trees().getElement(receiverPath);
    boolean typeName =
        receiverElement instanceof TypeElement
            || (receiverElement != null && receiverElement.getKind() == ElementKind.PACKAGE);
    Value receiver = typeName ? Value.UNKNOWN : expression(receiverPath);
    if (e != null && e.getKind() == ElementKind.FIELD) {
      return scope.field(ctx, (VariableElement) e, receiver, t);
    }
    return Value.UNKNOWN;
  }

  private Value assignment(TreePath path, AssignmentTree a) {
    TreePath rhs = new TreePath(path, a.getExpression());
    Value v = expression(rhs);
    if (aliased(rhs)) {
      v = Value.UNKNOWN;
    }
    TreePath lhs = new TreePath(path, a.getVariable());
    Element e = ctx.trees().getElement(lhs);
    if (a.getVariable() instanceof MemberSelectTree) {
      expression(new TreePath(lhs, ((MemberSelectTree) a.getVariable()).getExpression()));
    } else if (a.getVariable() instanceof com.sun.source.tree.ArrayAccessTree element) {
      Element array = namedLocal(new TreePath(lhs, element.getExpression()));
      TreePath index = new TreePath(lhs, element.getIndex());
      expression(index);
      if (array != null && env.get(array) != null && containers.holdsTensors(array.asType())) {
        Value held = env.get(array); // parts[i] = x
        env.put(
            array,
            constant(index) instanceof Integer i
                ? held.withElement(i, v)
                : Value.on(held.place().join(v.place())));
      }
    }
    if (a.getVariable() instanceof MemberSelectTree part
        && v.origin() == Value.Origin.UNMOVED_MODEL
        && skipParens(a.getExpression()) instanceof NewClassTree) {
      replacedPart(new TreePath(lhs, part.getExpression()), part.getIdentifier().toString(), path);
    }
    if (e != null && isLocal(e) && rt.isDevice(e.asType())) {
      v = deviceVariable(v, e, a, a.getExpression());
    }
    if (e instanceof VariableElement field
        && e.getKind() == ElementKind.FIELD
        && rt.isTensor(field.asType())
        && (a.getVariable() instanceof IdentifierTree
            || (a.getVariable() instanceof MemberSelectTree self
                && skipParens(self.getExpression()) instanceof IdentifierTree id
                && id.getName().contentEquals("this")))) {
      checks.stateAssigned(rhs, field, v); // globMean = stats.get("glob_mean") in a model's method
    }
    if (e != null && isLocal(e)) {
      String on = rt.declaredDevice(e);
      if (on != null && rt.isTensor(e.asType())) {
        Place declared = scope.declaredPlace(on);
        checks.contract(
            rhs,
            v,
            declared,
            () -> "the variable " + e.getSimpleName() + " (@OnDevice(\"" + on + "\"))");
        v = v.withPlace(declared);
      }
      env.put(e, named(v, e));
    }
    return v;
  }

  /**
   * {@code model.fc = new Linear(512, 10);} where {@code model} is a local holding a model on a
   * device: the new part is on the CPU until the model moves again.
   */
  private void replacedPart(TreePath owner, String field, TreePath assignment) {
    Element e = namedLocal(owner);
    Value model = e == null ? null : env.get(e);
    if (model != null
        && rt.isModel(e.asType())
        && model.place().isKnown()
        && !Place.CPU.equals(model.place())) {
      env.put(e, Value.on(Place.CPU).withOrigin(Value.Origin.REPLACED_PART, assignment, field));
    }
  }

  /**
   * {@code model.fc.toDevice(d)} after {@code model.fc} was replaced: where the model's parts are
   * is no longer known.
   */
  private void forgetReplacedPart(TreePath owner) {
    Element e = namedLocal(owner);
    Value model = e == null ? null : env.get(e);
    if (model != null && model.origin() == Value.Origin.REPLACED_PART) {
      env.put(e, Value.UNKNOWN);
    }
  }

  /** The local variable an expression names ({@code model}, {@code (model)}), or null. */
  private Element namedLocal(TreePath expression) {
    Element e =
        skipParens((ExpressionTree) expression.getLeaf()) instanceof IdentifierTree
            ? ctx.trees().getElement(expression)
            : null;
    return e != null && isLocal(e) ? e : null;
  }

  private static boolean isLocal(Element e) {
    return switch (e.getKind()) {
      case LOCAL_VARIABLE, PARAMETER, EXCEPTION_PARAMETER, RESOURCE_VARIABLE, BINDING_VARIABLE ->
          true;
      default -> false;
    };
  }

  private void lambda(TreePath path, LambdaExpressionTree l) {
    MethodInterpreter inner = new MethodInterpreter(ctx, scope, null, env.copy(), reporting);
    inner.batchDepth = batchDepth;
    inner.stepReason = stepReason;
    // loader.forEach(b -> ...) runs its lambda once per batch; any other lambda runs where it is
    // written.
    inner.batchLoopTree =
        batchSourceCall != null && path.getParentPath().getLeaf() == batchSourceCall
            ? l
            : batchLoopTree;
    for (VariableTree p : l.getParameters()) {
      Element e = ctx.trees().getElement(new TreePath(path, p));
      if (e != null) {
        inner.env.put(e, Value.UNKNOWN);
      }
    }
    TreePath body = new TreePath(path, l.getBody());
    inner.body(body);
    // The lambda may run any number of times: a captured container it fills (moved.put(k, v.to(d)))
    // holds what it held before or what the lambda put in.
    for (int i = 0; i < env.size(); i++) {
      Element variable = env.variableAt(i);
      Value after = inner.env.get(variable);
      if (after != null
          && !after.equals(env.valueAt(i))
          && containers.holdsTensors(variable.asType())) {
        env.put(variable, env.valueAt(i).join(after));
      }
    }
    if (inner.changedInPlace != null) {
      // The lambda may run at any time, or never: a captured model it moves is on either device.
      inner.changedInPlace.forEach(
          (variable, value) -> {
            Value before = env.get(variable);
            if (before != null) {
              Value either = before.join(value);
              // Moved if and when the lambda runs: not a path this method chooses, so nothing
              // known.
              env.put(
                  variable,
                  either.place().kind() == Place.Kind.BY_PATH
                      ? either.withPlace(Place.UNKNOWN)
                      : either);
              changedInPlace(variable, value);
            }
          });
    }
    ExpressionTree e = l.getBody() instanceof ExpressionTree ? skipParens(l.getBody()) : null;
    MethodSemantics sem = e != null && inner.lastCall == e ? inner.lastCallSemantics : null;
    if (sem != null && sem.pure() && dropsResult(ctx.trees().getTypeMirror(path))) {
      inner.checks.discardedResult(new TreePath(path, e), (MethodInvocationTree) e, sem);
    }
  }

  /**
   * A method reference such as {@code Tensor::cuda} passed where its result is dropped (a {@code
   * Consumer}, as in {@code xs.forEach(Tensor::cuda)}): every tensor it returns is discarded.
   */
  private void memberReference(TreePath path, MemberReferenceTree r) {
    TreePath qualifier = new TreePath(path, r.getQualifierExpression());
    Element q = ctx.trees().getElement(qualifier);
    if (!(q instanceof TypeElement) && !(q != null && q.getKind() == ElementKind.PACKAGE)) {
      expression(qualifier);
    }
    if (ctx.trees().getElement(path) instanceof ExecutableElement m) {
      MethodSemantics s = ctx.semantics(m);
      if (s.pure() && dropsResult(ctx.trees().getTypeMirror(path))) {
        checks.discardedReference(path, r, s);
      }
      if (s.inPlace
          && s.deviceParameter >= 0
          && r.getQualifierExpression() instanceof IdentifierTree
          && q != null
          && isLocal(q)) {
        env.put(
            q, Value.UNKNOWN); // Consumer<Device> mover = model::toDevice may move it at any time
      }
    }
  }

  private void changedInPlace(Element variable, Value value) {
    if (changedInPlace == null) {
      changedInPlace = new IdentityHashMap<>();
    }
    changedInPlace.put(variable, value);
  }

  /**
   * Whether a functional interface type's method drops a lambda's expression result: it returns
   * void, and declares no exception. A function that declares one, such as JUnit's {@code
   * Executable} in {@code assertThrows(IllegalArgumentException.class, () -> a.matmul(b))}, is run
   * for the exception its body may throw, and its result is meant to be dropped.
   */
  private boolean dropsResult(TypeMirror functional) {
    Element e = functional == null ? null : rt.types().asElement(functional);
    if (!(e instanceof TypeElement typeElement)) {
      return false;
    }
    for (Element member : ctx.elements().getAllMembers(typeElement)) {
      if (member instanceof ExecutableElement executableElement
          && member.getModifiers().contains(Modifier.ABSTRACT)) {
        return executableElement.getReturnType().getKind() == javax.lang.model.type.TypeKind.VOID
            && executableElement.getThrownTypes().isEmpty();
      }
    }
    return false;
  }

  // ------------------------------------------------------------------ calls

  private Value newClass(TreePath path, NewClassTree t) {
    if (t.getClassBody() != null) {
      capturedModels(new TreePath(path, t.getClassBody()));
    }
    Element e = ctx.trees().getElement(path);
    List<Value> args = arguments(path, t.getArguments(), e);
    TypeMirror type = ctx.trees().getTypeMirror(path);
    Place device = null;
    if (e instanceof ExecutableElement executableElement) {
      MethodSemantics s = ctx.semantics(executableElement);
      if (s.kind == MethodSemantics.Kind.FACTORY) {
        return factory(path, t.getArguments(), args, s);
      }
      ops.parameterContracts(path, executableElement, s, null, t.getArguments(), args);
      device = s.devicePlace(args);
    }
    if (rt.isModel(type)) {
      if (device != null) {
        return Value.on(device);
      }
      if (!rt.hasState(type)
          || (e instanceof ExecutableElement c && ctx.constructorMovesModel(c))) {
        return Value.UNKNOWN; // no state to move, or moved while it is built
      }
      Place submodules = Place.NONE;
      for (int i = 0; i < args.size(); i++) {
        TypeMirror argType = ctx.trees().getTypeMirror(new TreePath(path, t.getArguments().get(i)));
        if (rt.isModel(argType) && rt.hasState(argType)) {
          submodules = submodules.join(args.get(i).place());
        }
      }
      if (!Place.NONE.equals(submodules) && !Place.CPU.equals(submodules)) {
        return Value.on(submodules);
      }
      return Value.on(Place.CPU).withOrigin(Value.Origin.UNMOVED_MODEL, path, null);
    }
    if (rt.isTensor(type)
        && e instanceof ExecutableElement c
        && ctx.semantics(c).kind == MethodSemantics.Kind.SAME_DEVICE) {
      Place data = joined(path, t.getArguments(), args, Place.NONE);
      return Place.NONE.equals(data)
          ? Value.UNKNOWN
          : Value.on(data); // new Parameter(x): where its data is
    }
    if (rt.isTensorRecord(type)) {
      return Value.on(
          joined(
              path,
              t.getArguments(),
              args,
              Place.NONE)); // new Example(x, y): where its tensors are
    }
    if (containers.holdsTensors(type) && t.getClassBody() == null) {
      Value made =
          Value.on(
              joined(
                  path,
                  t.getArguments(),
                  args,
                  Place.NONE)); // new ArrayList<>(), new HashMap<>(other)
      return args.size() == 1 ? made.withPutsOf(args.get(0)) : made;
    }
    return Value.UNKNOWN;
  }

  /**
   * The models never moved that an anonymous class's body uses: its methods may move them at any
   * time ({@code new Runnable() { public void run() { model.toDevice(device); } }}), so their
   * device is no longer known.
   */
  private void capturedModels(TreePath classBody) {
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitIdentifier(IdentifierTree node, Void unused) {
        forgetUnmovedModel(getCurrentPath());
        return null;
      }
    }.scan(classBody, null);
  }

  private List<Value> arguments(
      TreePath path, List<? extends ExpressionTree> trees, Element callee) {
    List<Value> out = new ArrayList<>(trees.size());
    for (int i = 0; i < trees.size(); i++) {
      ExpressionTree a = trees.get(i);
      TreePath ap = new TreePath(path, a);
      Value v = expression(ap);
      record(a, v);
      out.add(v);
      if (v.partlyUnmoved() && !keepsDevice(callee, i)) {
        escaped(ap);
      }
    }
    return out;
  }

  /**
   * Whether a model passed as argument {@code i} stays where it is: a printing method's argument,
   * or a parameter annotated {@code @KeepsDevice}.
   */
  private boolean keepsDevice(Element callee, int i) {
    if (!(callee instanceof ExecutableElement m)) {
      return false;
    }
    if (rt.prints(m)) {
      return true;
    }
    List<? extends VariableElement> params = m.getParameters();
    return !params.isEmpty()
        && rt.annotations().has(params.get(Math.min(i, params.size() - 1)), KeepsDevice.class);
  }

  /**
   * Whether {@code value}, given to a variable, names a model that was never moved, through
   * parentheses, casts and the branches of a {@code ?:} or a {@code switch} ({@code Model m = net},
   * {@code Layer c = (Layer) b}, {@code m = big ? large : small}): the two variables then hold one
   * model, and a move through either moves both, so neither is followed from there on.
   */
  private boolean aliased(TreePath value) {
    Tree t = value.getLeaf();
    if (t instanceof ParenthesizedTree p) {
      return aliased(new TreePath(value, p.getExpression()));
    }
    if (t instanceof TypeCastTree c) {
      return aliased(new TreePath(value, c.getExpression()));
    }
    if (t instanceof ConditionalExpressionTree c) {
      boolean first = aliased(new TreePath(value, c.getTrueExpression()));
      boolean second = aliased(new TreePath(value, c.getFalseExpression()));
      return first || second;
    }
    if (t instanceof SwitchExpressionTree sw) {
      boolean any = false;
      for (CaseTree c : sw.getCases()) {
        if (c.getBody() instanceof ExpressionTree body) {
          any |= aliased(new TreePath(new TreePath(value, c), body));
        }
      }
      return any;
    }
    return t instanceof IdentifierTree && forgetUnmovedModel(value);
  }

  /**
   * Whether {@code identifier} names a local variable holding a model that was never moved; if so
   * its device is no longer known from here on.
   */
  private boolean forgetUnmovedModel(TreePath identifier) {
    Element e = ctx.trees().getElement(identifier);
    Value v = e != null && isLocal(e) ? env.get(e) : null;
    if (v == null || !v.partlyUnmoved()) {
      return false;
    }
    env.put(e, Value.UNKNOWN);
    return true;
  }

  /**
   * A model never moved, passed on (to a container model, a list, a helper): whatever it was passed
   * to may move it, so its variable's device is no longer known.
   */
  private void escaped(TreePath argument) {
    if (skipParens((ExpressionTree) argument.getLeaf()) instanceof IdentifierTree) {
      Element e = ctx.trees().getElement(argument);
      if (e != null && isLocal(e)) {
        env.put(e, Value.UNKNOWN);
      }
    }
  }

  private Value invocation(TreePath path, MethodInvocationTree t) {
    Element el = ctx.trees().getElement(path);
    ExpressionTree select = t.getMethodSelect();
    ExpressionTree receiverTree = null;
    Value receiver = null;
    boolean batchSource = false;
    if (select instanceof MemberSelectTree memberSelectTree) {
      TreePath selectPath = new TreePath(path, select);
      TreePath rp = new TreePath(selectPath, memberSelectTree.getExpression());
      Element re = ctx.trees().getElement(rp);
      boolean typeName =
          re instanceof TypeElement || (re != null && re.getKind() == ElementKind.PACKAGE);
      if (!typeName) {
        receiverTree = memberSelectTree.getExpression();
        receiver = expression(rp);
        batchSource = rt.hasInherited(ctx.trees().getTypeMirror(rp), BatchSource.class);
      }
    } else if (el == null || !el.getModifiers().contains(Modifier.STATIC)) {
      receiver = thisValue;
    }
    batchDepth += batchSource ? 1 : 0;
    Tree outerBatchSourceCall = batchSourceCall;
    batchSourceCall = batchSource ? t : null;
    List<Value> args = arguments(path, t.getArguments(), el);
    batchSourceCall = outerBatchSourceCall;
    batchDepth -= batchSource ? 1 : 0;
    if (!(el instanceof ExecutableElement m)) {
      return Value.UNKNOWN;
    }
    MethodSemantics s = ctx.semantics(m);
    if (rt.prints(m)) {
      for (int i = 0; i < t.getArguments().size(); i++) {
        printed(
            new TreePath(path, t.getArguments().get(i)),
            args.get(i),
            true); // System.out.println(loss)
      }
    }
    if (receiverTree != null
        && receiver.partlyUnmoved()
        && (((s.kind == MethodSemantics.Kind.OTHER || s.kind == MethodSemantics.Kind.MODEL_CALL)
                && ctx.mayMoveItsModel(m))
            || t.getArguments().stream().anyMatch(MethodInterpreter::movesWhatItIsGiven))) {
      // net.deploy(device), net.fit(x, device): a method of the model that may move it first;
      // net.apply(m -> m.toDevice(device)): a function given to the model that moves what it is
      // given.
      escaped(new TreePath(new TreePath(path, select), receiverTree));
      receiver = Value.UNKNOWN;
    }
    ExecutableElement runs = ctx.callSites().resolved(m);
    if (ctx.callSites().records(runs)) {
      ctx.callSites()
          .record(
              runs,
              receiverTree != null ? receiver : thisValue,
              args,
              t.getArguments()); // train(model, loader), or the one implementation of a step
    }
    Call call = new Call(path, t, m, s, receiverTree, receiver, t.getArguments(), args);
    Value result = apply(call);
    if (indexesElements(m, receiverTree)) {
      result =
          result.withZeroDim(true); // probs.get(i) of a 1-D tensor is 0-dim: it may meet any device
    }
    if (receiverTree != null
        && receiver.pendingHostCopy()
        && rt.annotations().has(m, ReadinessCheck.class)) {
      Element re = ctx.trees().getElement(call.receiverPath());
      if (re != null && isLocal(re)) {
        env.put(re, receiver.withPendingHostCopy(false)); // if (host.isReady()) show(host.item())
      }
    }
    if (s.hostSync) {
      if (call.receiver != null && call.receiverTree != null) {
        checks.read(call.receiverPath(), call.receiver);
      }
      checks.hostSync(call);
      if (receiver == null || !Place.CPU.equals(receiver.place())) {
        env.completePendingHostCopies();
      }
    }
    lastCall = t;
    lastCallSemantics = s;
    return result;
  }

  /**
   * Whether {@code m} is the runtime's {@code Tensor.get(long...)}: indexing that gives a 0-dim
   * tensor when it indexes every dimension. Ranks are not followed here, so its result is taken to
   * be 0-dim, which PyTorch lets meet a tensor on any device: no false error for {@code
   * weights.mul(classWeights.get(label))}, at the cost of missing one where fewer indices than
   * dimensions leave a CPU tensor of higher rank.
   */
  private boolean indexesElements(ExecutableElement m, ExpressionTree receiverTree) {
    return receiverTree != null
        && m.getSimpleName().contentEquals("get")
        && m.isVarArgs()
        && rt.isTensor(m.getEnclosingElement().asType())
        && rt.isTensor(m.getReturnType());
  }

  /**
   * A function that moves a model it is given: {@code m -> m.toDevice(device)}, {@code
   * Model::toDevice} with a device bound.
   */
  private static boolean movesWhatItIsGiven(ExpressionTree argument) {
    ExpressionTree a = skipParens(argument);
    if (a instanceof MemberReferenceTree reference) {
      return reference.getName().contentEquals("toDevice");
    }
    return a instanceof LambdaExpressionTree lambda
        && TreeSearch.contains(
            lambda.getBody(),
            x ->
                x instanceof MethodInvocationTree call
                    && call.getMethodSelect() instanceof MemberSelectTree select
                    && select.getIdentifier().contentEquals("toDevice"),
            x -> x instanceof com.sun.source.tree.ClassTree);
  }

  /**
   * One evaluated call: the method, its semantics, its receiver and arguments with their values.
   */
  final class Call {
    final TreePath path;
    final MethodInvocationTree tree;
    final ExecutableElement method;
    final MethodSemantics semantics;
    final ExpressionTree receiverTree;
    final Value receiver;
    final List<? extends ExpressionTree> argumentTrees;
    final List<Value> arguments;

    Call(
        TreePath path,
        MethodInvocationTree tree,
        ExecutableElement method,
        MethodSemantics semantics,
        ExpressionTree receiverTree,
        Value receiver,
        List<? extends ExpressionTree> argumentTrees,
        List<Value> arguments) {
      this.path = path;
      this.tree = tree;
      this.method = method;
      this.semantics = semantics;
      this.receiverTree = receiverTree;
      this.receiver = receiver;
      this.argumentTrees = argumentTrees;
      this.arguments = arguments;
    }

    TreePath argumentPath(int i) {
      return new TreePath(path, argumentTrees.get(i));
    }

    TreePath receiverPath() {
      return receiverTree == null
          ? path
          : new TreePath(new TreePath(path, tree.getMethodSelect()), receiverTree);
    }

    /**
     * The value of a subexpression evaluated during this call (elements of {@code List.of(...)}).
     */
    Value valueOf(Tree t) {
      return MethodInterpreter.this.valueOf(t);
    }

    /** Whether a method invocation tree was a factory creating on the CPU for want of a device. */
    boolean isCpuFactory(Tree t) {
      return MethodInterpreter.this.isCpuFactory(skipParens(t));
    }
  }

  private Value apply(Call c) {
    MethodSemantics s = c.semantics;
    return switch (s.kind) {
      case FACTORY -> byConstruction(c, factory(c.path, c.argumentTrees, c.arguments, s));
      case MOVE -> byConstruction(c, ops.move(c, s.devicePlace(c.arguments)));
      case SAME_DEVICE -> ops.sameDevice(c);
      case MODEL_CALL -> ops.modelCall(c);
      case RETURNS_DEVICE -> Value.on(returnedDevice(c));
      default -> other(c);
    };
  }

  /**
   * A move's or factory's result on the CPU because its device is a field every object of its class
   * holds as the CPU by default ({@code newTime.to(device)} in an estimator made without one).
   */
  private Value byConstruction(Call c, Value made) {
    int i = c.semantics.deviceParameter;
    VariableElement field =
        i >= 0 && i < c.argumentTrees.size() && Place.CPU.equals(made.place())
            ? ctx.cpuByConstruction(c.argumentPath(i))
            : null;
    return field == null
        ? made
        : made.withOrigin(
            Value.Origin.CPU_BY_CONSTRUCTION, c.path, field.getSimpleName().toString());
  }

  private Value factory(
      TreePath path, List<? extends ExpressionTree> argTrees, List<Value> args, MethodSemantics s) {
    Place device = s.devicePlace(args);
    Value tensorArg = null;
    boolean zeroDim = s.zeroDim(argTrees.size());
    for (int i = 0; i < argTrees.size(); i++) {
      TreePath ap = new TreePath(path, argTrees.get(i));
      TypeMirror at = ctx.trees().getTypeMirror(ap);
      if (at != null && rt.isTensor(at) && tensorArg == null) {
        tensorArg = args.get(i);
      }
      zeroDim |= at != null && rt.isShape(at) && args.get(i).zeroDim();
    }
    Value v;
    if (device != null) {
      v = Value.fresh(device);
    } else if (tensorArg != null) {
      v = Value.fresh(tensorArg.place());
    } else {
      v = Value.fresh(Place.CPU).withMadeAt(path);
      if (!s.fromHostData) {
        cpuFactories.put(path.getLeaf(), Boolean.TRUE);
      }
      if (scope.isModelInstanceMethod()) {
        v = v.withOrigin(Value.Origin.DEFAULT_DEVICE_FACTORY, path, null);
      }
    }
    return v.withZeroDim(zeroDim);
  }

  private Value other(Call c) {
    MethodSemantics s = c.semantics;
    Value loaded = CheckpointPlaces.of(c, rt);
    if (loaded != null) {
      return loaded; // Checkpoint.load(file, MapLocation.to(Device.cpu())).stateDict(): on the CPU
    }
    Value held = containerCall(c);
    if (held != null) {
      return held;
    }
    if (isHoldersAccessor(c) || returnsAPairOfResults(c)) {
      return Value.on(c.receiver.place()); // example.x() of a record, x.max(1) and its indices()
    }
    if (s.zeroDim(c.argumentTrees.size()) && rt.isShape(c.method.getReturnType())) {
      return Value.UNKNOWN.withZeroDim(
          true); // Shape s = Shape.scalar(): the shape of a 0-dim tensor
    }
    if (c.receiverTree != null && batchIterators.isNextBatch(c.path)) {
      return Value.on(Place.CPU)
          .withOrigin(Value.Origin.BATCH, c.path, null); // Batch b = it.next()
    }
    if (c.receiverTree != null
        && rt.hasInherited(c.method.getEnclosingElement().asType(), BatchSource.class)
        && rt.isIterator(c.method.getReturnType())) {
      return Value.UNKNOWN.withOrigin(
          Value.Origin.BATCH_ITERATOR, c.path, null); // it = loader.iterator()
    }
    ops.parameterContracts(c);
    Place device = s.devicePlace(c.arguments);
    if (s.inPlace && device != null && c.receiverTree == null && c.receiver != null) {
      thisValue =
          Value.UNKNOWN; // toDevice(d) in a method of the model: where it is now is not followed
    }
    if (s.inPlace && device != null && c.receiverTree != null) {
      TreePath rp = c.receiverPath();
      Element re = ctx.trees().getElement(rp);
      if (re != null && isLocal(re)) {
        env.put(re, Value.on(device));
        changedInPlace(re, Value.on(device));
      } else if (skipParens(c.receiverTree) instanceof MemberSelectTree part) {
        forgetReplacedPart(
            new TreePath(new TreePath(rp, part), part.getExpression())); // model.fc.toDevice(d)
      }
    }
    if (s.returnDevice != null) {
      Value v = Value.on(scope.declaredPlace(s.returnDevice, c.receiver));
      if (c.receiver != null) {
        v = fromBatch(v, c.receiver, c.path);
      }
      return v;
    }
    if (c.receiver != null
        && c.receiver.origin() == Value.Origin.BATCH
        && (s.returnsTensor || containers.holdsTensors(c.method.getReturnType()))) {
      return fromBatch(
          Value.on(Place.CPU),
          c.receiver,
          c.path); // a batch's tensors are in the memory its loader gives
    }
    if (rt.isModel(c.method.getReturnType())
        && HelperResults.newUnmovedModel(c.method, c.path, ctx)) {
      return Value.on(Place.CPU)
          .withOrigin(Value.Origin.UNMOVED_MODEL, c.path, null); // Net model = buildModel();
    }
    if (s.returnsTensor
        && c.method.getModifiers().contains(Modifier.STATIC)
        && HelperResults.cpuFactoryTensor(c.method, c.path, ctx)) {
      return Value.on(Place.CPU); // causalMask(n), a static helper making it on the CPU
    }
    boolean returnsTensors =
        s.returnsTensor
            || containers.holdsTensors(c.method.getReturnType())
            || rt.isTensorRecord(c.method.getReturnType());
    if (returnsTensors || givesTheCpu(c)) {
      CallResults.Outcome r =
          ctx.callResults().of(ctx.callSites().resolved(c.method), c.arguments, ctx);
      r.rejected()
          .forEach(rejected -> ops.rejectedArgument(c, rejected)); // agent.act(Tensor.of(state))
      if (returnsTensors
          && r.returned() != null
          && (r.returned().place().isKnown() || r.returned().knownByElement())) {
        // preprocess(text) building CPU tensors, scale(x) returning x.mul(2), new Tensor[] {mean,
        // count}
        return r.returned().throughCalls();
      }
    }
    return Value.UNKNOWN;
  }

  /** Whether a call gives a method of the class a tensor, or a container of them, on the CPU. */
  private boolean givesTheCpu(Call c) {
    if (!ctx.callSites().records(ctx.callSites().resolved(c.method))) {
      return false;
    }
    for (int i = 0; i < c.arguments.size(); i++) {
      if (Place.CPU.equals(c.arguments.get(i).place())) {
        return true;
      }
    }
    return false;
  }

  /**
   * A call that puts tensors into a container or takes them out ({@link TensorContainers}): the
   * value it returns, or null for any other call. A container local given to a method that is not
   * the JDK's, or to a function ({@code list.replaceAll(t -> t.to(d))}), may change there: where
   * its tensors are is no longer known.
   */
  private Value containerCall(Call c) {
    boolean jdk = TensorContainers.isJdkContainerMethod(c.method);
    boolean takesFunction = false;
    for (int i = 0; i < c.argumentTrees.size(); i++) {
      ExpressionTree a = skipParens(c.argumentTrees.get(i));
      takesFunction |= a instanceof LambdaExpressionTree || a instanceof MemberReferenceTree;
      if (!jdk
          && containers.holdsTensors(ctx.trees().getTypeMirror(c.argumentPath(i)))
          && ctx.callSites().mayChangeItsParameter(c.method, i, ctx.trees())) {
        forgetContainer(c.argumentPath(i));
      }
    }
    if (!jdk) {
      return null;
    }
    TypeMirror result = c.method.getReturnType();
    boolean returnsHeld =
        rt.isTensor(result)
            || containers.holdsTensors(result)
            || (ctx.trees().getTypeMirror(c.path) != null
                && (rt.isTensor(ctx.trees().getTypeMirror(c.path))
                    || containers.holdsTensors(ctx.trees().getTypeMirror(c.path))));
    if (c.receiverTree == null || c.method.getModifiers().contains(Modifier.STATIC)) {
      if (!returnsHeld || takesFunction) {
        return null;
      }
      // List.of(a, b), Map.of("w", w), Optional.of(x), Arrays.asList(...)
      return Value.on(joined(c.path, c.argumentTrees, c.arguments, Place.NONE));
    }
    if (c.receiver == null
        || !containers.holdsTensors(ctx.trees().getTypeMirror(c.receiverPath()))) {
      return null;
    }
    if (takesFunction) {
      if (!TensorContainers.reads(c.method)) {
        forgetContainer(
            c.receiverPath()); // replaceAll(t -> t.to(d)); not forEach, which only reads it
      }
      return returnsHeld ? Value.UNKNOWN : null;
    }
    Element local = namedLocal(c.receiverPath());
    if (TensorContainers.puts(c.method) && local != null) {
      // parts.set(i, parts.get(i).to(d)) may replace the tensor put on the CPU: the puts start
      // again.
      Value after = Value.on(joined(c.path, c.argumentTrees, c.arguments, c.receiver.place()));
      Object key =
          c.argumentTrees.size() == 2 && c.method.getSimpleName().contentEquals("put")
              ? constant(c.argumentPath(0))
              : null; // a map's key; a list's set(i, x) may replace what add(x) put
      if (!TensorContainers.replaces(c.method)) {
        after = after.withPutsOf(c.receiver);
      } else if (key != null) {
        // input.put("atom_pos", atomPos): only what was put under that key is replaced.
        after = after.withPutsOf(c.receiver).withoutPuts(put -> key.equals(putKey(put)));
      }
      for (int i = 0; i < c.argumentTrees.size(); i++) {
        if (rt.isTensor(ctx.trees().getTypeMirror(c.argumentPath(i)))) {
          after = after.withPut(c.argumentPath(i), c.arguments.get(i));
        }
      }
      env.put(local, after);
    }
    if (TensorContainers.removes(c.method) && local != null) {
      env.put(local, c.receiver.withoutPuts()); // parts.clear(): what was put is gone
    }
    if (!returnsHeld) {
      return null;
    }
    Value read = fromBatch(Value.on(c.receiver.place()), c.receiver, c.path);
    return containers.holdsTensors(result)
        ? read.withPutsOf(c.receiver)
        : read; // parts.subList(1, n)
  }

  /** The constant key or index a tensor was put under ({@code map.put("mask", m)}), or null. */
  private Object putKey(Value.Put put) {
    TreePath call = put.at().getParentPath();
    return call != null
            && call.getLeaf() instanceof MethodInvocationTree invocation
            && invocation.getArguments().size() == 2
            && invocation.getArguments().get(1) == put.at().getLeaf()
        ? constant(new TreePath(call, invocation.getArguments().get(0)))
        : null;
  }

  /**
   * What is read out of a batch's container keeps the batch as its origin ({@code
   * b.tensors().get(0)}): a tensor of the batch left on the CPU is reported as such.
   */
  private static Value fromBatch(Value read, Value container, TreePath at) {
    return container.origin() == Value.Origin.BATCH && Place.CPU.equals(read.place())
        ? read.withOrigin(Value.Origin.BATCH, at, container.originName())
            .withPinned(container.pinned())
        : read;
  }

  /**
   * Whether {@code c} reads a tensor out of a holder whose tensors' place is known: a record's
   * accessor ({@code example.inputs()} of {@code record Example(Tensor inputs, Tensor labels)} made
   * from tensors on one device), or the runtime's pair of results ({@code x.max(1).indices()}).
   */
  private boolean isHoldersAccessor(Call c) {
    if (c.receiver == null
        || c.receiverTree == null
        || !c.receiver.place().isKnown()
        || !c.method.getParameters().isEmpty()
        || !rt.isTensor(c.method.getReturnType())
        || !(c.method.getEnclosingElement() instanceof TypeElement owner)) {
      return false;
    }
    return owner.getKind() == ElementKind.RECORD || rt.isResultPair(owner.asType());
  }

  /** {@code x.max(1)}: a tensor op giving the runtime's pair of results, where {@code x} is. */
  private boolean returnsAPairOfResults(Call c) {
    return c.receiver != null
        && c.receiverTree != null
        && c.receiver.place().isKnown()
        && rt.isResultPair(c.method.getReturnType());
  }

  /**
   * Where the tensors among {@code args} (tensors, and containers of them) are, joined with {@code
   * start}: what a container or record made of them holds.
   */
  private Place joined(
      TreePath call, List<? extends ExpressionTree> trees, List<Value> args, Place start) {
    Place joined = start;
    for (int i = 0; i < trees.size() && i < args.size(); i++) {
      TypeMirror t = ctx.trees().getTypeMirror(new TreePath(call, trees.get(i)));
      if (rt.isTensor(t) || containers.holdsTensors(t)) {
        joined = joined.join(args.get(i).place());
      }
    }
    return joined;
  }

  /**
   * A container local that something may change out of sight: where its tensors are is no longer
   * known.
   */
  private void forgetContainer(TreePath expression) {
    Element local = namedLocal(expression);
    if (local != null && env.get(local) != null) {
      env.put(local, Value.UNKNOWN);
    }
  }

  private Place returnedDevice(Call c) {
    ReturnsDevice.Source source = c.semantics.deviceSource;
    return switch (source) {
      case CPU -> Place.CPU;
      case CURRENT_CUDA -> Place.fixed("cuda:0");
      case CUDA_INDEX -> {
        Object k = c.argumentTrees.isEmpty() ? null : constant(c.argumentPath(0));
        yield k instanceof Integer ? Place.fixed("cuda:" + k) : Place.UNKNOWN;
      }
      case PARSED -> {
        Object k = c.argumentTrees.isEmpty() ? null : constant(c.argumentPath(0));
        yield k instanceof String string ? parsed(string) : Place.UNKNOWN;
      }
      case RUNTIME -> Place.symbol(c.method, ctx.shortText(c.tree));
      default ->
          c.receiver == null
              ? Place.UNKNOWN
              : c.receiver.place().isKnown() ? c.receiver.place() : deviceOfVariable(c);
    };
  }

  /**
   * {@code model.device()} of a model or tensor whose place is not known, held by a final field: a
   * device known only at run time, the same at every such call, so that {@code
   * ids.to(model.device())} and a mask left on the CPU are seen to differ.
   */
  private Place deviceOfVariable(Call c) {
    Element e = c.receiverTree == null ? null : ctx.trees().getElement(c.receiverPath());
    boolean stable =
        e != null
            && e.getKind() == ElementKind.FIELD
            && e.getModifiers().contains(Modifier.FINAL)
            && rt.isModel(e.asType());
    return stable ? Place.symbol(e, e.getSimpleName() + ".device()") : Place.UNKNOWN;
  }

  private static Place parsed(String spec) {
    if (spec.equals("cpu") || spec.equals("cpu:0")) {
      return Place.CPU;
    }
    if (spec.equals("cuda")) {
      return Place.fixed("cuda:0");
    }
    return spec.matches("cuda:(0|[1-9][0-9]*)") ? Place.fixed(spec) : Place.UNKNOWN;
  }

  /** The compile-time constant value of an expression, or null. */
  @Override
  public Object constant(TreePath path) {
    Tree t = skipParens(path.getLeaf());
    if (t instanceof LiteralTree literalTree) {
      return literalTree.getValue();
    }
    Element e = ctx.trees().getElement(path);
    if (e instanceof VariableElement variableElement) {
      return variableElement.getConstantValue();
    }
    return null;
  }

  static ExpressionTree skipParens(Tree t) {
    Tree x = t;
    while (x instanceof ParenthesizedTree) {
      x = ((ParenthesizedTree) x).getExpression();
    }
    return (ExpressionTree) x;
  }

  /** Whether a call created a tensor on the CPU for want of a device ({@code Tensor.zeros(3)}). */
  @Override
  public boolean isCpuFactory(Tree call) {
    return cpuFactories.containsKey(call);
  }

  /** Whether {@code call} invokes a tensor move ({@code to}, {@code cuda}, {@code cpu}). */
  @Override
  public boolean isMove(TreePath call) {
    Element e = ctx.trees().getElement(call);
    return e instanceof ExecutableElement m && ctx.semantics(m).kind == MethodSemantics.Kind.MOVE;
  }

  /** Whether the analysis is inside a batch loop or a step method. */
  @Override
  public boolean inBatchLoop() {
    return batchDepth > 0;
  }

  /** Why the body runs once per batch where no loop or {@code @Step} says so, or null. */
  @Override
  public String stepReason() {
    return stepReason;
  }

  /** Why the body runs on every forward pass of a model, or null. */
  @Override
  public String forwardStep() {
    return forwardStep;
  }

  /**
   * The innermost batch loop being interpreted, or the lambda a batch source runs once per batch:
   * null outside one, or where the batch is a {@code @Step} method's.
   */
  @Override
  public Tree batchLoop() {
    return batchLoopTree;
  }

  @Override
  public ModelScope scope() {
    return scope;
  }

  Env env() {
    return env;
  }
}
