package dev.ondevice.processor.analysis;

import com.sun.source.tree.ArrayAccessTree;
import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.BlockTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.ConditionalExpressionTree;
import com.sun.source.tree.EnhancedForLoopTree;
import com.sun.source.tree.ExpressionStatementTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.IfTree;
import com.sun.source.tree.ImportTree;
import com.sun.source.tree.LiteralTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewArrayTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.ParameterizedTypeTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.StatementTree;
import com.sun.source.tree.SynchronizedTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.TryTree;
import com.sun.source.tree.TypeCastTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.TreeScanner;
import dev.ondevice.annotations.OnDevice;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Name;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * Which tensor parameters of a model's method it uses only in ways that do not depend on their
 * device, read from the method's syntax and the declarations of the classes it names (so that it
 * reads the same before and after javac has attributed the method's class): a host read or a shape
 * query ({@code lengths.toLongArray()}), a move to a device ({@code x.to(device())}, also assigned
 * back to the parameter, after which it is on that device), a copy into a parameter or buffer of
 * values computed from it alone ({@code emb.weight().assign(vectors.div(norms))}), or a parameter
 * of another method of the model or of a submodule that is itself used so ({@code forward(x,
 * lengths)}, {@code encoder.forward(ids, lengths)}); followed through locals, arrays, loops over
 * them and {@code ?:}. A use with the model's state, with a parameter that must be on the model's
 * device, or with a tensor made elsewhere makes it a parameter on the model's device. The argument
 * of a neutral parameter need not be on the model's device.
 */
final class NeutralParameters {
  /** Methods on a tensor whose result does not depend on the tensor's device meeting another's. */
  private static final Set<String> NEUTRAL_CALLS =
      Set.of(
          "to",
          "cpu",
          "cuda",
          "toLongArray",
          "toFloatArray",
          "toDoubleArray",
          "toBooleanArray",
          "item",
          "itemAsLong",
          "itemAsBoolean",
          "shape",
          "size",
          "dim",
          "device",
          "dtype",
          "numel",
          "isPinned",
          "pinMemory",
          "isReady");

  /**
   * Methods on a tensor whose result is a value on the host: its shape, or its elements read there.
   */
  static final Set<String> HOST_VALUES =
      Set.of(
          "size",
          "shape",
          "dim",
          "numel",
          "dtype",
          "item",
          "itemAsLong",
          "itemAsBoolean",
          "toLongArray",
          "toFloatArray",
          "toDoubleArray",
          "toBooleanArray");

  /** Methods that copy their tensor argument in place, from any device. */
  private static final Set<String> COPIES = Set.of("assign", "copyFrom");

  /**
   * Whether parameter {@code index} of another method (of the model, or of a submodule) is used on
   * any device.
   */
  interface OtherMethods {
    boolean neutral(ExecutableElement method, int index);
  }

  private final Map<Name, List<TreePath>> uses = new HashMap<>();

  /**
   * Every value a local is given: its initializer, what is assigned to it or its elements, the
   * iterable of a loop over it.
   */
  private final Map<Name, List<ExpressionTree>> givenValues = new HashMap<>();

  /** Locals given {@code x.device()}: {@code Device d = x.device();}. */
  private final Set<Name> deviceLocals = new HashSet<>();

  /**
   * Locals declared {@code Device} (or {@code var} given a device): moves to them are moves to a
   * device.
   */
  private final Set<Name> deviceTypedLocals = new HashSet<>();

  private final Set<Name> locals = new HashSet<>();
  private final Map<Name, VariableElement> fields = new HashMap<>();
  private final Map<Name, TypeMirror> parameters = new HashMap<>();
  private final MethodTree method;
  private final CompilationUnitTree unit;
  private final TypeElement type;
  private final Elements elements;
  private final Types types;
  private final RuntimeTypes rt;
  private final OtherMethods others;

  /** Per parameter judged on its own: whether it is used on any device. */
  private final Map<Name, Boolean> known = new HashMap<>();

  /**
   * The parameters being judged, innermost first, each with the locals followed from it; a value
   * computed from the parameter itself is free where it meets it ({@code vectors.div(norms)}).
   */
  private final Deque<Lineage> lineages = new ArrayDeque<>();

  /** A parameter being judged and the locals followed from it (each followed once). */
  private record Lineage(Name root, Set<Name> followed) {}

  private final Map<Name, MoveBack> movesBack = new HashMap<>();

  private NeutralParameters(
      TreePath methodPath,
      ExecutableElement element,
      TypeElement type,
      Elements elements,
      RuntimeTypes rt,
      OtherMethods others) {
    this.method = (MethodTree) methodPath.getLeaf();
    this.unit = methodPath.getCompilationUnit();
    this.type = type;
    this.elements = elements;
    this.types = rt.types();
    this.rt = rt;
    this.others = others;
    for (VariableElement p : element.getParameters()) {
      parameters.put(p.getSimpleName(), p.asType());
    }
    for (Element member : elements.getAllMembers(type)) {
      if (member.getKind() == ElementKind.FIELD) {
        fields.put(member.getSimpleName(), (VariableElement) member);
      }
    }
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitIdentifier(IdentifierTree node, Void unused) {
        uses.computeIfAbsent(node.getName(), k -> new ArrayList<>()).add(getCurrentPath());
        return null;
      }

      @Override
      public Void visitVariable(VariableTree node, Void unused) {
        locals.add(node.getName());
        if (node.getInitializer() != null) {
          given(node.getName(), node.getInitializer());
          if (isDeviceOf(node.getInitializer())) {
            deviceLocals.add(node.getName());
          }
        }
        String declared = node.getType() == null ? "" : node.getType().toString();
        if (declared.equals("Device")
            || declared.endsWith(".Device")
            || (node.getInitializer() != null
                && (declared.isEmpty() || declared.equals("var"))
                && names(node.getInitializer()))) {
          deviceTypedLocals.add(node.getName());
        }
        return super.visitVariable(node, null);
      }

      @Override
      public Void visitAssignment(AssignmentTree node, Void unused) {
        if (node.getVariable() instanceof IdentifierTree id) {
          given(id.getName(), node.getExpression());
        } else if (node.getVariable() instanceof ArrayAccessTree access
            && access.getExpression() instanceof IdentifierTree array) {
          given(array.getName(), node.getExpression()); // p[1] = scale
        }
        return super.visitAssignment(node, null);
      }

      @Override
      public Void visitEnhancedForLoop(EnhancedForLoopTree node, Void unused) {
        given(node.getVariable().getName(), node.getExpression());
        return super.visitEnhancedForLoop(node, null);
      }
    }.scan(new TreePath(methodPath, method.getBody()), null);
  }

  private void given(Name local, ExpressionTree value) {
    givenValues.computeIfAbsent(local, k -> new ArrayList<>()).add(value);
  }

  /**
   * For each parameter of the method at {@code methodPath} ({@code element}, of model class {@code
   * type}), whether it is a tensor used on any device; {@code others} answers for the other methods
   * it calls on the model or its submodules.
   */
  static boolean[] of(
      TreePath methodPath,
      ExecutableElement element,
      TypeElement type,
      Elements elements,
      RuntimeTypes rt,
      OtherMethods others) {
    NeutralParameters n = new NeutralParameters(methodPath, element, type, elements, rt, others);
    List<? extends VariableElement> params = element.getParameters();
    boolean[] neutral = new boolean[params.size()];
    for (int i = 0; i < neutral.length; i++) {
      neutral[i] =
          n.isTensorLike(params.get(i).asType())
              && n.usedOnAnyDevice(params.get(i).getSimpleName());
    }
    return neutral;
  }

  /**
   * Whether parameter {@code name} is used on any device, judged on its own: a parameter being
   * judged elsewhere that it meets counts as one on the model's device.
   */
  private boolean usedOnAnyDevice(Name name) {
    boolean top = lineages.isEmpty();
    Boolean cached = top ? known.get(name) : null;
    if (cached != null) {
      return cached;
    }
    lineages.push(new Lineage(name, new HashSet<>(Set.of(name))));
    boolean all = usesEnd(name);
    lineages.pop();
    if (top) {
      known.put(name, all);
    }
    return all;
  }

  /**
   * Whether a local given the value being judged (or a value computed from it) is used on any
   * device.
   */
  private boolean followed(Name local) {
    return !lineages.peek().followed().add(local)
        || usesEnd(local); // already followed: its uses are being judged
  }

  private boolean usesEnd(Name name) {
    MoveBack movedBack = moveBack(name);
    for (TreePath use : uses.getOrDefault(name, List.of())) {
      if (movedBack != null && movedBack.isBefore(use)) {
        continue; // on the device it was moved to
      }
      if (!endsOnAnyDevice(use, name)) {
        return false;
      }
    }
    return true;
  }

  private boolean isParameter(Name name) {
    return parameters.containsKey(name) && !locals.contains(name);
  }

  /**
   * Whether the value at {@code path} (a use of {@code name}), and what is computed from it, ends
   * in a use on any device.
   */
  private boolean endsOnAnyDevice(TreePath path, Name name) {
    Tree child = path.getLeaf();
    boolean device = deviceLocals.contains(name);
    for (TreePath p = path.getParentPath(); p != null; child = p.getLeaf(), p = p.getParentPath()) {
      Tree parent = p.getLeaf();
      if (parent instanceof ParenthesizedTree || parent instanceof TypeCastTree) {
        continue;
      }
      if (parent instanceof MemberSelectTree select && select.getExpression() == child) {
        TreePath up = p.getParentPath();
        if (!(up.getLeaf() instanceof MethodInvocationTree call)
            || call.getMethodSelect() != select) {
          return select
              .getIdentifier()
              .contentEquals("length"); // parts.length of an array; any other field of it
        }
        if (device) {
          return true; // d.equals(device()), d.isCuda(): a question about the device, on the host
        }
        String called = select.getIdentifier().toString();
        if (called.equals("device")) {
          device = true; // Tensor.zeros(n, x.device()): a tensor where it is, followed further
          child = call;
          p = up;
          continue;
        }
        if (NEUTRAL_CALLS.contains(called) && (!called.equals("to") || movesToDevice(call))) {
          return true;
        }
        if (!call.getArguments().stream().allMatch(this::free)) {
          return false; // x.add(weight): it meets something else, perhaps the model's state
        }
        child = call; // x.div(norms): computed from it alone, followed further
        p = up;
        continue;
      }
      if (parent instanceof MethodInvocationTree call && call.getArguments().contains(child)) {
        if (call.getMethodSelect() instanceof MemberSelectTree select
            && COPIES.contains(select.getIdentifier().toString())) {
          return true; // w.assign(x): a copy, from any device
        }
        List<ExecutableElement> callees = modelMethods(call);
        if (callees != null) {
          return !device && allUseOnAnyDevice(callees, call.getArguments().indexOf(child));
        }
        Tree argument = child;
        List<ExecutableElement> statics =
            !device
                    && call.getMethodSelect() instanceof MemberSelectTree select
                    && looksLikeTypeName(select.getExpression())
                ? executables(
                    select.getExpression(), select.getIdentifier(), call.getArguments().size())
                : List.of();
        if (allDeclareDevice(statics, call.getArguments().indexOf(child))) {
          return true; // Tables.of(xs), declared @OnDevice("cpu"): where it must be is checked
          // where it is passed
        }
        if (returnHostValues(statics)
            && call.getArguments().stream().allMatch(a -> a == argument || free(a))) {
          return true; // long[] l = SeqUtils.toList(lengths): values on the host, computed from it
        }
        // Tensor.stack(List.of(x)), vectors.div(norms): computed from it and from values free of
        // the
        // model's state, where the call has a receiver (a class, such as Tensor or List, or such a
        // value) and its other arguments are free of it too.
        if (!(call.getMethodSelect() instanceof MemberSelectTree select)
            || !(isClassName(select.getExpression()) || free(select.getExpression()))
            || !call.getArguments().stream().allMatch(a -> a == argument || free(a))) {
          return false;
        }
        device = false;
        continue;
      }
      if (parent instanceof NewClassTree created && created.getArguments().contains(child)) {
        return !device
            && created.getClassBody() == null
            && allDeclareDevice(
                executables(created.getIdentifier(), null, created.getArguments().size()),
                created.getArguments().indexOf(child)); // new TensorDataset(xs, ys)
      }
      if (parent instanceof NewArrayTree array
          && array.getInitializers() != null
          && array.getInitializers().contains(child)) {
        Tree element = child;
        if (device || !array.getInitializers().stream().allMatch(e -> e == element || free(e))) {
          return false;
        }
        continue; // {a, b}: an array of it, followed further
      }
      if (parent instanceof ArrayAccessTree access && access.getExpression() == child) {
        continue; // parts[0]: an element of it
      }
      if (parent instanceof ConditionalExpressionTree choice && choice.getCondition() != child) {
        continue; // lengths != null ? lengths : fallback: either, followed further
      }
      if (parent instanceof VariableTree local && local.getInitializer() == child) {
        return followed(local.getName());
      }
      if (parent instanceof EnhancedForLoopTree loop && loop.getExpression() == child) {
        return followed(loop.getVariable().getName());
      }
      if (parent instanceof AssignmentTree assignment) {
        return assignedOnAnyDevice(p, assignment, child);
      }
      if (parent instanceof ExpressionStatementTree) {
        return true; // Objects.requireNonNull(x): a result nobody uses
      }
      if (parent instanceof BinaryTree b && isStringConcatenation(b)) {
        return true; // "bad lengths " + lengths: printed on the host
      }
      if (parent instanceof BinaryTree compare
          && (compare.getKind() == Tree.Kind.EQUAL_TO
              || compare.getKind() == Tree.Kind.NOT_EQUAL_TO)
          && (compare.getLeftOperand().getKind() == Tree.Kind.NULL_LITERAL
              || compare.getRightOperand().getKind() == Tree.Kind.NULL_LITERAL)) {
        return true; // lengths != null
      }
      return false;
    }
    return false;
  }

  /**
   * Where a value assigned at {@code assignment} (at {@code path}; {@code child} being one side of
   * it) ends.
   */
  private boolean assignedOnAnyDevice(TreePath path, AssignmentTree assignment, Tree child) {
    if (assignment.getVariable() == child) {
      return true; // written, not read: what it is given is followed where it is given
    }
    ExpressionTree target = assignment.getVariable();
    if (target instanceof ArrayAccessTree access
        && access.getExpression() instanceof IdentifierTree array) {
      target = array; // p[1] = x: an element of p
    }
    if (target instanceof MemberSelectTree select
        && select.getExpression() instanceof IdentifierTree self
        && self.getName().contentEquals("this")) {
      target = select; // this.lastLengths = lengths
    }
    Name stored =
        target instanceof IdentifierTree id
            ? id.getName()
            : target instanceof MemberSelectTree select ? select.getIdentifier() : null;
    if (stored != null
        && pinnedField(stored)
        && !(target instanceof IdentifierTree id && isLocalOrParameter(id.getName()))) {
      return true; // lastLengths = lengths, an @OnDevice("cpu") field: checked against its
      // declaration
    }
    if (!(target instanceof IdentifierTree id)
        || !(locals.contains(id.getName()) || isParameter(id.getName()))) {
      return false; // stored in a field
    }
    Name to = id.getName();
    MoveBack moved = isParameter(to) ? moveBack(to) : null;
    if (moved != null && moved.isBefore(path)) {
      return false; // given to a parameter already moved to the model's device
    }
    return followed(to);
  }

  /**
   * The methods of the model, or of one of its submodules, that a call may invoke: {@code
   * forward(x)}, {@code this.forward(x)}, {@code super.forward(x)}, {@code encoder.forward(x)} for
   * a submodule field; null for any other call.
   */
  private List<ExecutableElement> modelMethods(MethodInvocationTree call) {
    TypeElement owner;
    Name name;
    if (call.getMethodSelect() instanceof IdentifierTree id) {
      owner = type;
      name = id.getName();
    } else if (call.getMethodSelect() instanceof MemberSelectTree select) {
      name = select.getIdentifier();
      owner = receiverClass(select.getExpression());
      if (owner == null) {
        return null;
      }
    } else {
      return null;
    }
    List<ExecutableElement> candidates = new ArrayList<>();
    int arity = call.getArguments().size();
    for (Element member : elements.getAllMembers(owner)) {
      if (member instanceof ExecutableElement m
          && m.getKind() == ElementKind.METHOD
          && m.getSimpleName().equals(name)
          && (m.getParameters().size() == arity
              || (m.isVarArgs() && arity >= m.getParameters().size() - 1))) {
        candidates.add(m);
      }
    }
    return candidates;
  }

  /**
   * The class of a receiver that is the model itself ({@code this}, {@code super}) or a submodule
   * field of it; else null.
   */
  private TypeElement receiverClass(ExpressionTree receiver) {
    ExpressionTree r = ModelMethodSource.skipParensAndCasts(receiver);
    Name field = null;
    if (r instanceof IdentifierTree id) {
      if (id.getName().contentEquals("this")) {
        return type;
      }
      if (id.getName().contentEquals("super")) {
        return types.asElement(type.getSuperclass()) instanceof TypeElement s ? s : null;
      }
      field = isLocalOrParameter(id.getName()) ? null : id.getName();
    } else if (r instanceof MemberSelectTree select
        && select.getExpression() instanceof IdentifierTree self
        && self.getName().contentEquals("this")) {
      field = select.getIdentifier();
    }
    VariableElement f = field == null ? null : fields.get(field);
    if (f == null || !rt.isModel(f.asType()) || !(f.asType() instanceof DeclaredType declared)) {
      return null;
    }
    return declared.asElement() instanceof TypeElement t ? t : null;
  }

  /**
   * Whether every method a call may invoke uses argument {@code index} on any device; parameters
   * that cannot take a tensor (a {@code long[]} overload) do not count.
   */
  private boolean allUseOnAnyDevice(List<ExecutableElement> callees, int index) {
    boolean any = false;
    for (ExecutableElement m : callees) {
      int last = m.getParameters().size() - 1;
      int p = Math.min(index, last);
      TypeMirror t = m.getParameters().get(p).asType();
      if (t.getKind().isPrimitive()
          || (t.getKind() == TypeKind.ARRAY && !(m.isVarArgs() && p == last))) {
        continue;
      }
      if (!others.neutral(m, p)) {
        return false;
      }
      any = true;
    }
    return any;
  }

  /**
   * Whether every constructor or method a call may invoke declares {@code @OnDevice} with a device
   * of its own ({@code "cpu"}, not {@value OnDevice#MODEL}) for argument {@code index}: the
   * argument is then used on that device, which the interpretation checks where it is passed, not
   * on the model's. False when there is no candidate.
   */
  private boolean allDeclareDevice(List<ExecutableElement> candidates, int index) {
    for (ExecutableElement m : candidates) {
      VariableElement p = m.getParameters().get(Math.min(index, m.getParameters().size() - 1));
      String declared = rt.declaredDevice(p);
      if (declared == null || declared.equals(OnDevice.MODEL)) {
        return false;
      }
    }
    return !candidates.isEmpty();
  }

  /**
   * Whether every candidate returns values on no device ({@code long[]}, {@code int}, {@code
   * String}); false for none.
   */
  private boolean returnHostValues(List<ExecutableElement> candidates) {
    return !candidates.isEmpty()
        && candidates.stream().allMatch(m -> isPlainValue(m.getReturnType()));
  }

  /**
   * The constructors ({@code name} null) or static-call candidates named {@code name} of the class
   * that {@code classTree} names, that take {@code arity} arguments; empty when the class is not
   * found by {@link #classNamed}.
   */
  private List<ExecutableElement> executables(Tree classTree, Name name, int arity) {
    TypeElement owner = classNamed(classTree);
    List<ExecutableElement> out = new ArrayList<>();
    if (owner == null) {
      return out;
    }
    for (Element member : owner.getEnclosedElements()) {
      if (member instanceof ExecutableElement m
          && (name == null
              ? m.getKind() == ElementKind.CONSTRUCTOR
              : m.getKind() == ElementKind.METHOD && m.getSimpleName().equals(name))
          && (m.getParameters().size() == arity
              || (m.isVarArgs() && arity >= m.getParameters().size() - 1))) {
        out.add(m);
      }
    }
    return out;
  }

  /**
   * The class a type name in the method's source names, read from the source alone: a qualified
   * name, or a simple one found among the member classes of the model and of the classes around it,
   * the single-type imports, the package, and the on-demand imports, in that order. Null otherwise.
   */
  private TypeElement classNamed(Tree classTree) {
    Tree t = classTree instanceof ParameterizedTypeTree generic ? generic.getType() : classTree;
    if (t instanceof MemberSelectTree select) {
      TypeElement outer = classNamed(select.getExpression());
      if (outer != null) {
        return memberClass(outer, select.getIdentifier());
      }
      return elements.getTypeElement(select.toString());
    }
    if (!(t instanceof IdentifierTree id)) {
      return null;
    }
    Name simple = id.getName();
    for (Element e = type; e instanceof TypeElement enclosing; e = e.getEnclosingElement()) {
      if (enclosing.getSimpleName().equals(simple)) {
        return enclosing;
      }
      TypeElement member = memberClass(enclosing, simple);
      if (member != null) {
        return member;
      }
    }
    List<String> onDemand = new ArrayList<>();
    for (ImportTree i : unit.getImports()) {
      String imported = i.getQualifiedIdentifier().toString();
      if (i.isStatic()) {
        continue;
      }
      if (imported.endsWith(".*")) {
        onDemand.add(imported.substring(0, imported.length() - 1));
      } else if (imported.endsWith("." + simple)) {
        return elements.getTypeElement(imported);
      }
    }
    String pkg = unit.getPackageName() == null ? "" : unit.getPackageName() + ".";
    TypeElement inPackage = elements.getTypeElement(pkg + simple);
    if (inPackage != null) {
      return inPackage;
    }
    for (String prefix : onDemand) {
      TypeElement found = elements.getTypeElement(prefix + simple);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  /**
   * A field of the model declared on a device of its own ({@code @OnDevice("cpu")}), which does not
   * move with the model.
   */
  private boolean pinnedField(Name name) {
    VariableElement f = fields.get(name);
    String declared = f == null ? null : rt.declaredDevice(f);
    return declared != null && !declared.equals(OnDevice.MODEL);
  }

  private static TypeElement memberClass(TypeElement outer, Name simple) {
    for (TypeElement member : ElementFilter.typesIn(outer.getEnclosedElements())) {
      if (member.getSimpleName().equals(simple)) {
        return member;
      }
    }
    return null;
  }

  /**
   * A class name by the Java convention, simple ({@code Tables}) or qualified ({@code
   * HostTables.Table}): worth looking up with {@link #classNamed}.
   */
  private boolean looksLikeTypeName(ExpressionTree e) {
    return isClassName(e)
        || (e instanceof MemberSelectTree select
            && Character.isUpperCase(select.getIdentifier().charAt(0)));
  }

  private boolean isLocalOrParameter(Name name) {
    return locals.contains(name) || parameters.containsKey(name);
  }

  /**
   * Whether an expression is free of the model's state: no field, {@code this}, call of the model's
   * own methods ({@code forward(x)}) or static field used as a receiver ({@code Shared.ENCODER}) in
   * it, no tensor parameter that must be on the model's device, no local given such a value or made
   * from a model or a device parameter; literals, primitives, strings, locals given such values and
   * static calls of classes ({@code Tensor.full(...)}, {@code Shape.of(...)}) are.
   */
  private boolean free(Tree e) {
    return free(e, new HashSet<>());
  }

  private boolean free(Tree e, Set<Name> visiting) {
    boolean[] bound = {false};
    new TreeScanner<Void, Void>() {
      @Override
      public Void visitIdentifier(IdentifierTree node, Void unused) {
        bound[0] |= !freeName(node.getName(), visiting);
        return null;
      }

      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        if (node.getMethodSelect() instanceof IdentifierTree) {
          bound[0] = true; // forward(x), a method of the model
        } else if (node.getMethodSelect() instanceof MemberSelectTree select
            && (HOST_VALUES.contains(select.getIdentifier().toString())
                || ModelMethodSource.isMoveToCpu(node, false))) {
          return scan(
              node.getArguments(), null); // ids.size(1), forward(x).argmax(1).cpu(): on the host
        }
        return super.visitMethodInvocation(node, null);
      }

      @Override
      public Void visitMemberSelect(MemberSelectTree node, Void unused) {
        if (node.getExpression() instanceof MemberSelectTree inner
            && isClassName(inner.getExpression())) {
          bound[0] =
              true; // Shared.ENCODER.forward(x): a static field of another class, perhaps a model
          return null;
        }
        return node.getExpression() instanceof IdentifierTree id && isClassName(id)
            ? null
            : super.visitMemberSelect(node, null);
      }
    }.scan(e, null);
    return !bound[0];
  }

  private boolean freeName(Name n, Set<Name> visiting) {
    if (pinnedField(n) && !isLocalOrParameter(n)) {
      return true; // an @OnDevice("cpu") table: on its own device, not the model's
      // (table.indexSelect(0, ids))
    }
    if (n.contentEquals("this") || n.contentEquals("super") || fields.containsKey(n)) {
      return false; // the model, a field (or a local or a lambda parameter named as one: not told
      // apart here)
    }
    if (!lineages.isEmpty() && lineages.peek().root().equals(n)) {
      return true; // the parameter being judged: what is computed from it is where it is
    }
    if (isParameter(n)) {
      TypeMirror t = parameters.get(n);
      if (!isTensorLike(t)) {
        return isPlainValue(t);
      }
      // One being judged further out counts as on the model's device: two parameters that meet
      // (correct(logits, labels) given forward(x)) are where the model's output is.
      return lineages.stream().noneMatch(l -> l.root().equals(n))
          && moveBack(n) == null
          && usedOnAnyDevice(n);
    }
    if (!locals.contains(n) || !visiting.add(n)) {
      return true; // a class, or a local computed from itself
    }
    boolean free = givenValues.getOrDefault(n, List.of()).stream().allMatch(v -> free(v, visiting));
    visiting.remove(n);
    return free;
  }

  /** A tensor, or an array of tensors ({@code Tensor... parts}). */
  private boolean isTensorLike(TypeMirror t) {
    return rt.isTensor(t)
        || (t.getKind() == TypeKind.ARRAY && rt.isTensor(((ArrayType) t).getComponentType()));
  }

  /**
   * A primitive, a boxed primitive, a string or an array of primitives: values that are on no
   * device.
   */
  private boolean isPlainValue(TypeMirror t) {
    if (t.getKind().isPrimitive()) {
      return true;
    }
    if (t.getKind() == TypeKind.ARRAY) {
      return ((ArrayType) t).getComponentType().getKind().isPrimitive();
    }
    if (t.getKind() != TypeKind.DECLARED) {
      return false;
    }
    try {
      types.unboxedType(t);
      return true;
    } catch (IllegalArgumentException notBoxed) {
      return rt.isString(t);
    }
  }

  /**
   * An identifier that names a class by the Java convention ({@code Tensor}, {@code Shape}, {@code
   * DType}).
   */
  private boolean isClassName(Tree t) {
    return t instanceof IdentifierTree id
        && !isLocalOrParameter(id.getName())
        && !fields.containsKey(id.getName())
        && Character.isUpperCase(id.getName().charAt(0));
  }

  private static boolean isStringConcatenation(BinaryTree b) {
    return b.getKind() == Tree.Kind.PLUS
        && TreeSearch.contains(
            b,
            t -> t instanceof LiteralTree l && l.getValue() instanceof String,
            t -> !(t instanceof BinaryTree || t instanceof ParenthesizedTree));
  }

  /**
   * {@code device()}, {@code x.device()}, {@code Device.cuda(0)}: an expression that names a
   * device.
   */
  private static boolean names(ExpressionTree e) {
    return ModelMethodSource.skipParensAndCasts(e) instanceof MethodInvocationTree call
        && (call.getMethodSelect() instanceof IdentifierTree id
            ? id.getName().contentEquals("device")
            : call.getMethodSelect() instanceof MemberSelectTree select
                && (select.getIdentifier().contentEquals("device")
                    || (select.getExpression() instanceof IdentifierTree owner
                        && owner.getName().contentEquals("Device"))));
  }

  /**
   * {@code x.to(device())}, {@code x.to(dev)} with {@code dev} a {@code Device} local, parameter or
   * field: a move to a device.
   */
  private boolean movesToDevice(MethodInvocationTree call) {
    if (isMoveToDevice(call)) {
      return true;
    }
    if (call.getArguments().isEmpty()
        || !(ModelMethodSource.skipParensAndCasts(call.getArguments().get(0))
            instanceof IdentifierTree id)) {
      return false;
    }
    Name n = id.getName();
    if (locals.contains(n)) {
      return deviceTypedLocals.contains(n);
    }
    TypeMirror t =
        parameters.containsKey(n)
            ? parameters.get(n)
            : fields.containsKey(n) ? fields.get(n).asType() : null;
    return t != null && rt.isDevice(t);
  }

  /** {@code x.device()}: the device of a tensor. */
  private static boolean isDeviceOf(ExpressionTree e) {
    return ModelMethodSource.skipParensAndCasts(e) instanceof MethodInvocationTree call
        && call.getArguments().isEmpty()
        && call.getMethodSelect() instanceof MemberSelectTree select
        && select.getIdentifier().contentEquals("device");
  }

  // ------------------------------------------------------------------ moves back

  /**
   * Where parameter {@code name} is first moved to a device and assigned back, in statements that
   * run whenever the method body gets that far: {@code x = x.to(device());}, {@code images =
   * images.view(-1, 784).to(device());}, {@code x = x.to(device()).to(DType.FLOAT32);}, {@code if
   * (!x.device().equals(device())) x = x.to(device());}, also as the first statements of a {@code
   * try} block or a plain block. Null when it is not.
   */
  private MoveBack moveBack(Name name) {
    if (!movesBack.containsKey(name)) {
      movesBack.put(name, findMoveBack(method.getBody(), name, null));
    }
    return movesBack.get(name);
  }

  private MoveBack findMoveBack(BlockTree block, Name name, MoveBack outer) {
    List<? extends StatementTree> statements = block.getStatements();
    for (int i = 0; i < statements.size(); i++) {
      StatementTree s = statements.get(i);
      MoveBack here = new MoveBack(outer, block, i, null);
      if (movesBack(s, name)) {
        return here;
      }
      BlockTree inner =
          s instanceof BlockTree b
              ? b
              : s instanceof TryTree t
                  ? t.getBlock()
                  : s instanceof SynchronizedTree sync ? sync.getBlock() : null;
      if (inner != null) {
        MoveBack found = findMoveBack(inner, name, new MoveBack(outer, block, i, inner));
        if (found != null) {
          return found;
        }
      }
    }
    return null;
  }

  private boolean movesBack(StatementTree s, Name name) {
    StatementTree statement = s;
    if (statement instanceof IfTree branch && branch.getElseStatement() == null) {
      statement =
          branch.getThenStatement(); // if (!x.device().equals(device())) x = x.to(device());
      if (statement instanceof BlockTree b && b.getStatements().size() == 1) {
        statement = b.getStatements().get(0);
      }
    }
    if (!(statement instanceof ExpressionStatementTree e)
        || !(e.getExpression() instanceof AssignmentTree a)
        || !(a.getVariable() instanceof IdentifierTree target)
        || !target.getName().equals(name)) {
      return false;
    }
    // The receivers of the calls on the right, down to the parameter: a move among them, and no
    // call
    // before it (nearer the parameter) meeting anything but values free of the model's state.
    boolean moved = false;
    ExpressionTree r = ModelMethodSource.skipParensAndCasts(a.getExpression());
    List<MethodInvocationTree> beforeMove = new ArrayList<>();
    while (r instanceof MethodInvocationTree call
        && call.getMethodSelect() instanceof MemberSelectTree select) {
      if (movesBackTo(call, select)) {
        moved = true;
        beforeMove.clear();
      } else {
        beforeMove.add(call);
      }
      r = ModelMethodSource.skipParensAndCasts(select.getExpression());
    }
    return moved
        && r instanceof IdentifierTree source
        && source.getName().equals(name)
        && beforeMove.stream().allMatch(call -> call.getArguments().stream().allMatch(this::free));
  }

  /** A move ({@link #isMove}), also to a {@code Device} variable ({@code x.to(dev)}). */
  private boolean movesBackTo(MethodInvocationTree call, MemberSelectTree select) {
    return isMove(call, select)
        || (select.getIdentifier().contentEquals("to") && movesToDevice(call));
  }

  /**
   * The place of a statement that moves a parameter back: statement {@code index} of {@code block},
   * inside the statement {@code index} of the block of {@code outer} (through its block {@code
   * inner}, the block of a {@code try} or a plain block).
   */
  private record MoveBack(MoveBack outer, BlockTree block, int index, BlockTree inner) {
    /** Whether the code at {@code use} runs after the move, in the same run through the body. */
    boolean isBefore(TreePath use) {
      List<MoveBack> chain = new ArrayList<>();
      for (MoveBack m = this; m != null; m = m.outer) {
        chain.add(0, m);
      }
      for (MoveBack level : chain) {
        int at = indexIn(use, level.block);
        if (at != level.index) {
          return at > level.index;
        }
        if (level.inner != null && !within(use, level.inner)) {
          return false; // in a catch or finally block, or the resources of the try
        }
      }
      return false; // the statement that moves it
    }

    private static int indexIn(TreePath use, BlockTree block) {
      Tree child = use.getLeaf();
      for (TreePath p = use.getParentPath();
          p != null;
          child = p.getLeaf(), p = p.getParentPath()) {
        if (p.getLeaf() == block) {
          return block.getStatements().indexOf(child);
        }
      }
      return -1;
    }

    private static boolean within(TreePath use, Tree tree) {
      for (TreePath p = use; p != null; p = p.getParentPath()) {
        if (p.getLeaf() == tree) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * {@code x.to(device())}, {@code x.to(Device.cuda(0))}, {@code x.to(y.device())}: a move to a
   * device the source names as one; any other {@code to} may be a conversion ({@code
   * x.to(FLOAT32)}).
   */
  static boolean isMoveToDevice(MethodInvocationTree call) {
    return !call.getArguments().isEmpty() && names(call.getArguments().get(0));
  }

  /**
   * {@code x.cpu()}, {@code x.cuda()} or {@code x.to(device())} (a {@code to} whose argument names
   * a device): a move, {@code select} being the call's method select.
   */
  static boolean isMove(MethodInvocationTree call, MemberSelectTree select) {
    String method = select.getIdentifier().toString();
    return ((method.equals("cpu") || method.equals("cuda")) && call.getArguments().isEmpty())
        || (method.equals("to") && isMoveToDevice(call));
  }
}
