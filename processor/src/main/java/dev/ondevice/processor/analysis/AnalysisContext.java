package dev.ondevice.processor.analysis;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.Name;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;

/**
 * What the analysis of one compilation unit shares: the compiler's trees and types, the method
 * semantics (cached per method), the source text for messages and fixes, and the findings, with
 * suppression and severities applied. Findings go into a stack of buffers, so that a pass over a
 * loop body can be discarded when the loop has not reached its fixed point.
 */
final class AnalysisContext {
  private final Trees trees;
  private final CompilationUnitTree unit;
  private final RuntimeTypes runtimeTypes;
  private final Elements elements;
  private final AnalysisOptions options;
  private final IdentityHashMap<ExecutableElement, MethodSemantics> semantics;
  private final IdentityHashMap<Element, List<String>> suppressionLists = new IdentityHashMap<>();
  private final ClassFacts facts;
  private final Deque<List<Pending>> buffers = new ArrayDeque<>();
  private final Deque<List<RejectedArgument>> rejections = new ArrayDeque<>();
  private final Map<String, Finding> committed = new LinkedHashMap<>();
  private CharSequence source;
  private final CallSites callSites = new CallSites();
  private final CallResults callResults = new CallResults();
  private final HeldModels heldModels = new HeldModels();
  private final IdentityHashMap<Tree, Boolean> trainingLoops = new IdentityHashMap<>();
  private final IdentityHashMap<ExecutableElement, Boolean> methodsThatTrain =
      new IdentityHashMap<>();
  private ComputedOnTheHost computedOnTheHost;

  /**
   * Per element: its declaration's path, or an empty one where its source is not here. javac finds
   * one by scanning its whole file each time it is asked; the declarations of the analysed file are
   * recorded in one scan instead. Kept for this class's analysis only, as javac may discard a
   * class's trees once it is done with it.
   */
  private IdentityHashMap<Element, Optional<TreePath>> declarations;

  AnalysisContext(
      Trees trees,
      CompilationUnitTree unit,
      Elements elements,
      RuntimeTypes runtimeTypes,
      AnalysisOptions options,
      IdentityHashMap<ExecutableElement, MethodSemantics> semantics,
      ClassFacts facts) {
    this.trees = trees;
    this.facts = facts;
    this.unit = unit;
    this.elements = elements;
    this.runtimeTypes = runtimeTypes;
    this.options = options;
    this.semantics = semantics;
  }

  /** The path of {@code e}'s declaration, or null where its source is not here. */
  TreePath pathOf(Element e) {
    if (declarations == null) {
      declarations = Declarations.of(trees, unit);
    }
    Optional<TreePath> known = declarations.get(e);
    if (known == null) {
      known = Optional.ofNullable(trees.getPath(e)); // declared in another file
      declarations.put(e, known);
    }
    return known.orElse(null);
  }

  /**
   * Whether a field is the implicit {@code this} or {@code super} of its class, compared by name
   * without decoding it.
   */
  boolean isThisOrSuper(Element field) {
    return runtimeTypes.isThisOrSuper(field.getSimpleName());
  }

  Trees trees() {
    return trees;
  }

  CompilationUnitTree unit() {
    return unit;
  }

  RuntimeTypes types() {
    return runtimeTypes;
  }

  /** The calls between the bodies of the class being analysed, and the arguments they give. */
  CallSites callSites() {
    return callSites;
  }

  /**
   * Whether a loop calls {@code backward()} on every iteration ({@link TrainingLoops}), asked once
   * per loop.
   */
  boolean stepsEveryIteration(TreePath loop) {
    Boolean known = trainingLoops.get(loop.getLeaf());
    if (known == null) {
      known = TrainingLoops.stepsEveryIteration(loop, trees, this::trainsEachCall);
      trainingLoops.put(loop.getLeaf(), known);
    }
    return known;
  }

  /**
   * Whether a method of the compilation calls {@code backward()} once per call ({@link
   * TrainingLoops#trainsEachCall}), asked once per method; a method without source here does not.
   */
  boolean trainsEachCall(ExecutableElement m) {
    Boolean known = methodsThatTrain.get(m);
    if (known == null) {
      methodsThatTrain.put(m, false); // a recursive call does not train by itself
      TreePath path = pathOf(m);
      known =
          path != null
              && path.getLeaf() instanceof MethodTree method
              && method.getBody() != null
              && TrainingLoops.trainsEachCall(
                  new TreePath(path, method.getBody()), trees, this::trainsEachCall);
      methodsThatTrain.put(m, known);
    }
    return known;
  }

  /**
   * Tensors computed on the CPU from factories, through variables and methods of the compilation.
   */
  ComputedOnTheHost computedOnTheHost() {
    if (computedOnTheHost == null) {
      computedOnTheHost = new ComputedOnTheHost(this);
    }
    return computedOnTheHost;
  }

  /** Where the tensors the class's methods return are, per call. */
  CallResults callResults() {
    return callResults;
  }

  /** Where the model held by a field of a class that is not a model is ({@link HeldModels}). */
  Place heldModel(VariableElement field) {
    return heldModels.of(field, this);
  }

  /** Which types are containers of tensors, for the whole compilation. */
  TensorContainers containers() {
    return runtimeTypes.containers();
  }

  /** What the analysis has learnt about the classes of the compilation. */
  ClassFacts facts() {
    return facts;
  }

  Elements elements() {
    return elements;
  }

  MethodSemantics semantics(ExecutableElement m) {
    MethodSemantics s = semantics.get(m);
    if (s == null) {
      s = MethodSemantics.of(m, runtimeTypes);
      semantics.put(m, s);
    }
    return s;
  }

  /**
   * Whether calling {@code m}, an instance method of a model class of the user's, may move the
   * model it is called on ({@code net.deploy(device)} calling {@code toDevice}): where its body is
   * in this compilation, whether it calls {@code toDevice}, or a method of the model's class that
   * may; a method compiled elsewhere may, unless it is the runtime's, whose moves are declared with
   * {@code @Move}.
   */
  boolean mayMoveItsModel(ExecutableElement m) {
    Element owner = m.getEnclosingElement();
    if (m.getModifiers().contains(Modifier.STATIC)
        || !(owner instanceof TypeElement type)
        || !runtimeTypes.isModel(owner.asType())
        || runtimeTypes.isModelBase(owner.asType())) {
      return false;
    }
    Boolean known = facts.movesItsModel.get(m);
    if (known == null) {
      facts.movesItsModel.put(
          m, false); // a method that calls itself, directly or not, moves nothing by that
      MethodTree method = trees.getTree(m);
      known =
          (method == null || method.getBody() == null)
              ? !isRuntime(owner)
              : TreeSearch.contains(
                  method.getBody(),
                  t -> t instanceof MethodInvocationTree call && callMayMove(call, type),
                  t -> false);
      facts.movesItsModel.put(m, known);
    }
    return known;
  }

  /**
   * Whether a constructor of a model class of the user's moves the model it builds, or a part of it
   * ({@code toDevice(Device.parse(spec))}, {@code net1.toDevice(Device.cuda(0))} in PyTorch's
   * model-parallel tutorial): a model so built is not on the CPU for certain.
   */
  boolean constructorMovesModel(ExecutableElement constructor) {
    Boolean known = facts.movesItsModel.get(constructor);
    if (known == null) {
      facts.movesItsModel.put(constructor, false);
      Element owner = constructor.getEnclosingElement();
      MethodTree method =
          constructor.getKind() != ElementKind.CONSTRUCTOR
                  || !(owner instanceof TypeElement)
                  || !runtimeTypes.isModel(owner.asType())
                  || runtimeTypes.isModelBase(owner.asType())
                  || isRuntime(owner)
              ? null
              : trees.getTree(constructor);
      known =
          method != null
              && method.getBody() != null
              && TreeSearch.contains(
                  method.getBody(),
                  t ->
                      t instanceof MethodInvocationTree call
                          && callMayMove(call, (TypeElement) owner),
                  t -> false);
      facts.movesItsModel.put(constructor, known);
    }
    return known;
  }

  /**
   * Whether a model class of the user's, or a superclass of it, places its parts on devices of its
   * own while it is built ({@code net1.toDevice(Device.parse("cuda:0")); net2.toDevice(
   * Device.parse("cuda:1"));}, PyTorch's model-parallel tutorial): such a model has no one device,
   * so neither its state nor its outputs are taken to be on "the model's device".
   */
  boolean placesPartsItself(TypeElement type) {
    for (TypeElement t = type;
        t != null && runtimeTypes.isModel(t.asType()) && !runtimeTypes.isModelBase(t.asType());
        t =
            t.getSuperclass() instanceof javax.lang.model.type.DeclaredType d
                ? (TypeElement) d.asElement()
                : null) {
      Boolean known = facts.placesParts.get(t);
      if (known == null) {
        known = false;
        for (Element member : t.getEnclosedElements()) {
          MethodTree tree =
              member.getKind() == ElementKind.CONSTRUCTOR
                  ? trees.getTree((ExecutableElement) member)
                  : null;
          known |=
              tree != null
                  && tree.getBody() != null
                  && TreeSearch.contains(
                      tree.getBody(),
                      x -> x instanceof MethodInvocationTree call && movesAPart(call),
                      x -> false);
        }
        facts.placesParts.put(t, known);
      }
      if (known) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a constructor's body makes tensors (an optimizer making its state there), judged while
   * its class's trees are there and kept for the compilation ({@link ClassFacts}).
   */
  boolean constructorMakesTensors(ExecutableElement constructor) {
    Boolean known = facts.constructorMakesTensors.get(constructor);
    if (known == null) {
      known = OptimizerStateOrder.makesTensors(constructor, this);
      facts.constructorMakesTensors.put(constructor, known);
    }
    return known;
  }

  /**
   * The final {@code Device} field a model class's constructors move it to, or the static one every
   * move of it in its file names ({@link DeviceField}), or null.
   */
  VariableElement deviceFieldMovedTo(TypeElement type) {
    if (type == null || !runtimeTypes.isModel(type.asType())) {
      return null;
    }
    if (!facts.deviceFields.containsKey(type)) {
      VariableElement own = DeviceField.movedTo(type, trees, runtimeTypes);
      facts.deviceFields.put(
          type, own != null ? own : DeviceField.globalMovedTo(type, trees, runtimeTypes));
    }
    return facts.deviceFields.get(type);
  }

  /**
   * {@code part.toDevice(d)} or {@code this.part.toDevice(d)}: a move of a field, not of the whole
   * model.
   */
  private static boolean movesAPart(MethodInvocationTree call) {
    return call.getMethodSelect() instanceof MemberSelectTree select
        && select.getIdentifier().contentEquals("toDevice")
        && (MethodInterpreter.skipParens(select.getExpression()) instanceof IdentifierTree id
            ? !id.getName().contentEquals("this") && !id.getName().contentEquals("super")
            : MethodInterpreter.skipParens(select.getExpression()) instanceof MemberSelectTree);
  }

  /**
   * Where the tensors {@code m}, an instance method of a model class of the user's, returns are, as
   * its source shows: on the model's device unless it moves some to the CPU; on the CPU where every
   * return does and no subclass can override it ({@code predict(x)} ending in {@code .cpu()} in a
   * final class); not known otherwise, and for a method whose source is not in this compilation.
   */
  ModelMethodSource.Returns returns(ExecutableElement m) {
    ModelMethodSource.Returns known = facts.returns.get(m);
    if (known == null) {
      TreePath method = userModelMethod(m);
      known =
          method == null
              ? ModelMethodSource.Returns.MODEL_DEVICE
              : ModelMethodSource.returns(
                  (MethodTree) method.getLeaf(),
                  m,
                  (TypeElement) m.getEnclosingElement(),
                  elements,
                  runtimeTypes);
      if (known == ModelMethodSource.Returns.UNKNOWN && returnsOnTheCpuByConstruction(method, m)) {
        known =
            ModelMethodSource.Returns.CPU; // return out.to(device), device defaulting to the CPU
      }
      facts.returns.put(m, known);
    }
    return known;
  }

  /**
   * Whether every return of {@code m} moves to a field that every object of its class holds as the
   * CPU by default, and no subclass can override it.
   */
  private boolean returnsOnTheCpuByConstruction(TreePath method, ExecutableElement m) {
    boolean overridable =
        !m.getModifiers().contains(Modifier.FINAL)
            && !m.getModifiers().contains(Modifier.PRIVATE)
            && !m.getEnclosingElement().getModifiers().contains(Modifier.FINAL);
    List<TreePath> moves = ConstructedDevices.returnedMoves(method, this);
    return !overridable && !moves.isEmpty() && moves.stream().allMatch(Objects::nonNull);
  }

  /**
   * Whether parameter {@code i} of {@code m}, a method of a model class of the user's whose source
   * is in this compilation, is a tensor it uses on any device ({@code lengths} read with {@code
   * toLongArray()}, {@code vectors} copied into a parameter): its argument need not be on the
   * model's device.
   */
  boolean deviceNeutralParameter(ExecutableElement m, int i) {
    boolean[] known = facts.deviceNeutralParameters.get(m);
    if (known == null) {
      if (m.getEnclosingElement() instanceof TypeElement owner) {
        neutralParametersOf(owner);
      }
      known =
          facts.deviceNeutralParameters.computeIfAbsent(
              m, k -> new boolean[k.getParameters().size()]);
    }
    return i < known.length && known[i];
  }

  /**
   * Judges the parameters of every method of model class {@code owner} whose source is here, all at
   * once, as its methods call each other ({@code predict} calling {@code forward}, recursion): from
   * every tensor parameter used on any device, the judgement of each method is repeated with those
   * of the others until none changes. The result does not depend on which method is asked first.
   */
  private void neutralParametersOf(TypeElement owner) {
    Map<ExecutableElement, TreePath> methods = new LinkedHashMap<>();
    for (ExecutableElement m : ElementFilter.methodsIn(owner.getEnclosedElements())) {
      TreePath path = userModelMethod(m, true);
      if (path != null) {
        methods.put(m, path);
      }
      facts.deviceNeutralParameters.put(
          m, new boolean[m.getParameters().size()]); // while judged: on the model's device
    }
    IdentityHashMap<ExecutableElement, boolean[]> assumed = new IdentityHashMap<>();
    for (ExecutableElement m : methods.keySet()) {
      boolean[] all = new boolean[m.getParameters().size()];
      Arrays.fill(all, true);
      assumed.put(m, all);
    }
    NeutralParameters.OtherMethods others =
        (callee, index) -> {
          boolean[] a = assumed.get(callee);
          return a != null ? index < a.length && a[index] : deviceNeutralParameter(callee, index);
        };
    for (boolean changed = true; changed; ) {
      changed = false;
      for (Map.Entry<ExecutableElement, TreePath> e : methods.entrySet()) {
        boolean[] now =
            NeutralParameters.of(e.getValue(), e.getKey(), owner, elements, runtimeTypes, others);
        if (!Arrays.equals(now, assumed.get(e.getKey()))) {
          assumed.put(e.getKey(), now);
          changed = true;
        }
      }
    }
    facts.deviceNeutralParameters.putAll(assumed);
    facts.judgedFromSource.addAll(methods.keySet());
  }

  /**
   * Whether {@code m} is a method of a model class of the user's whose source is in this
   * compilation, its parameters judged from it (recorded with the class's facts, so the answer is
   * the same whatever the order of the source files).
   */
  boolean isUserModelMethod(ExecutableElement m) {
    deviceNeutralParameter(m, 0);
    return facts.judgedFromSource.contains(m);
  }

  /**
   * Whether {@code Device} parameter {@code i} of {@code m}, a private instance method of a model
   * class of the user's, is the model's device at every call: {@code device()}, or {@code
   * x.device()} of one of the model's tensor fields or of a tensor parameter on the model's device
   * ({@code setCache(n, x.device())} in {@code forward(x)}, {@code setCache(n, invFreq.device())}
   * in the constructor).
   */
  boolean givenTheModelsDevice(ExecutableElement m, int i) {
    boolean[] known = facts.modelsDeviceParameters.get(m);
    if (known == null) {
      known = new boolean[m.getParameters().size()];
      facts.modelsDeviceParameters.put(
          m, known); // while judged (a recursive call): not known to be
      TreePath path = userModelMethod(m);
      for (int p = 0; path != null && p < known.length; p++) {
        int index = p;
        known[p] =
            runtimeTypes.isDevice(m.getParameters().get(p).asType())
                && CallersOfMethod.giveTheModelsDevice(
                    path, m, index, trees, this::isTheModelsDevice);
      }
    }
    return i >= 0 && i < known.length && known[i];
  }

  /**
   * {@code device()} of the model, or {@code t.device()} of a tensor field or parameter on the
   * model's device.
   */
  private boolean isTheModelsDevice(TreePath argument) {
    if (!(argument.getLeaf() instanceof MethodInvocationTree call)
        || !call.getArguments().isEmpty()) {
      return false;
    }
    if (call.getMethodSelect() instanceof IdentifierTree id) {
      return id.getName().contentEquals("device")
          && trees.getElement(argument) instanceof ExecutableElement own
          && own.getEnclosingElement() instanceof TypeElement owner
          && runtimeTypes.isModel(owner.asType());
    }
    if (!(call.getMethodSelect() instanceof MemberSelectTree select)
        || !select.getIdentifier().contentEquals("device")) {
      return false;
    }
    TreePath receiver = new TreePath(new TreePath(argument, select), select.getExpression());
    if (isThisOrSuperTree(select.getExpression())) {
      return true; // this.device()
    }
    if (!(trees.getElement(receiver) instanceof VariableElement v)
        || !runtimeTypes.isTensor(v.asType())) {
      return false;
    }
    String declared = runtimeTypes.declaredDevice(v);
    if (declared != null && !declared.equals(dev.ondevice.annotations.OnDevice.MODEL)) {
      return false; // an @OnDevice("cpu") table
    }
    if (v.getKind() == ElementKind.FIELD) {
      return !v.getModifiers().contains(Modifier.STATIC)
          && v.getEnclosingElement() instanceof TypeElement owner
          && runtimeTypes.isModel(owner.asType());
    }
    return v.getKind() == ElementKind.PARAMETER
        && v.getEnclosingElement() instanceof ExecutableElement method
        && !method.getModifiers().contains(Modifier.STATIC)
        && userModelMethod(method) != null
        && !deviceNeutralParameter(method, method.getParameters().indexOf(v));
  }

  /** The path of the source of an instance method of a model class outside the runtime, or null. */
  private TreePath userModelMethod(ExecutableElement m) {
    return userModelMethod(m, false);
  }

  /**
   * The path of the source of a method (an instance method unless {@code staticToo}) of a model
   * class outside the runtime, or null.
   */
  private TreePath userModelMethod(ExecutableElement m, boolean staticToo) {
    Element owner = m.getEnclosingElement();
    if ((!staticToo && m.getModifiers().contains(Modifier.STATIC))
        || !(owner instanceof TypeElement)
        || !runtimeTypes.isModel(owner.asType())
        || runtimeTypes.isModelBase(owner.asType())
        || isRuntime(owner)) {
      return null;
    }
    TreePath method = pathOf(m);
    return method == null
            || !(method.getLeaf() instanceof MethodTree tree)
            || tree.getBody() == null
        ? null
        : method;
  }

  private boolean isRuntime(Element type) {
    return elements.getPackageOf(type).getQualifiedName().toString().startsWith("dev.ondevice");
  }

  /**
   * Whether a call in a method of model class {@code type} may move the model: {@code toDevice}, or
   * a method of its own that may.
   */
  private boolean callMayMove(MethodInvocationTree call, TypeElement type) {
    Name name;
    if (call.getMethodSelect() instanceof IdentifierTree id) {
      name = id.getName();
    } else if (call.getMethodSelect() instanceof MemberSelectTree select) {
      name = select.getIdentifier();
      if (!name.contentEquals("toDevice") && !isThisOrSuperTree(select.getExpression())) {
        return false;
      }
    } else {
      return false;
    }
    if (name.contentEquals("toDevice")) {
      return true;
    }
    for (Element member : elements.getAllMembers(type)) {
      if (member instanceof ExecutableElement candidate
          && member.getKind() == ElementKind.METHOD
          && member.getSimpleName().equals(name)
          && mayMoveItsModel(candidate)) {
        return true;
      }
    }
    return false;
  }

  private boolean isThisOrSuperTree(Tree t) {
    return t instanceof IdentifierTree id && runtimeTypes.isThisOrSuper(id.getName());
  }

  /** The source text of a tree, whitespace collapsed. */
  String text(Tree tree) {
    SourcePositions positions = trees.getSourcePositions();
    long start = positions.getStartPosition(unit, tree);
    long end = positions.getEndPosition(unit, tree);
    CharSequence src = source();
    if (start < 0 || end < start || src == null || end > src.length()) {
      return tree.toString();
    }
    return collapseWhitespace(src, (int) start, (int) end);
  }

  /**
   * The source between {@code start} and {@code end} on one line: comments dropped ({@code // bug}
   * after the first line of a call written over several), each run of whitespace one space.
   */
  private static String collapseWhitespace(CharSequence src, int start, int end) {
    StringBuilder out = new StringBuilder(end - start);
    boolean space = false;
    char quote = 0;
    for (int i = start; i < end; i++) {
      char ch = src.charAt(i);
      if (quote == 0 && ch == '/' && i + 1 < end && src.charAt(i + 1) == '/') {
        while (i + 1 < end && src.charAt(i + 1) != '\n') {
          i++;
        }
        space = true;
        continue;
      }
      if (quote == 0 && ch == '/' && i + 1 < end && src.charAt(i + 1) == '*') {
        i += 2;
        while (i + 1 < end && !(src.charAt(i) == '*' && src.charAt(i + 1) == '/')) {
          i++;
        }
        i++;
        space = true;
        continue;
      }
      if (quote != 0 && ch == '\\' && i + 1 < end) {
        out.append(ch).append(src.charAt(++i));
        continue;
      }
      if (ch == '"' || ch == '\'') {
        quote = quote == 0 ? ch : quote == ch ? 0 : quote;
      }
      if (quote == 0 && Character.isWhitespace(ch)) {
        space = true;
      } else {
        if (space) {
          out.append(' ');
          space = false;
        }
        out.append(ch);
      }
    }
    if (space) {
      out.append(' ');
    }
    return out.toString();
  }

  /** The text, shortened for a message. */
  String shortText(Tree tree) {
    String t = text(tree);
    return t.length() <= 60 ? t : t.substring(0, 57) + "...";
  }

  /** The whole source of the unit. */
  String sourceText() {
    return source().toString();
  }

  private CharSequence source() {
    if (source == null) {
      try {
        source = unit.getSourceFile().getCharContent(true);
      } catch (IOException | UnsupportedOperationException e) {
        source = "";
      }
    }
    return source;
  }

  // ------------------------------------------------------------------ findings

  void pushBuffer() {
    buffers.push(new ArrayList<>());
  }

  /**
   * A finding not yet kept, with the path of the expression that found it: the tree it is about, or
   * the op where a tensor created elsewhere meets another device.
   */
  record Pending(Finding finding, TreePath trigger) {}

  /** The line where {@code path}'s node starts, for messages that point into another method. */
  long lineOf(TreePath path) {
    CompilationUnitTree of = path.getCompilationUnit();
    return of.getLineMap()
        .getLineNumber(trees.getSourcePositions().getStartPosition(of, path.getLeaf()));
  }

  /**
   * Where {@code path} is, for a message: {@code line N} in this file, {@code Other.java:N} in
   * another.
   */
  String placeOf(TreePath path) {
    CompilationUnitTree of = path.getCompilationUnit();
    if (of == unit) {
      return "line " + lineOf(path);
    }
    String file = of.getSourceFile().getName();
    return file.substring(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1)
        + ":"
        + lineOf(path);
  }

  /**
   * Starts collecting the arguments a method interpreted for one call rejects ({@link
   * CallResults}).
   */
  void pushRejections() {
    rejections.push(new ArrayList<>());
  }

  /** The arguments rejected since the matching {@link #pushRejections}. */
  List<RejectedArgument> popRejections() {
    return rejections.pop();
  }

  /**
   * Records an argument the method being interpreted rejects, for the call it is interpreted for;
   * in the method's own analysis there is none, and its callers report it at their calls.
   */
  void rejected(RejectedArgument r) {
    if (!rejections.isEmpty()) {
      rejections.peek().add(r);
    }
  }

  /** Keeps the findings of the innermost buffer (moves them to the enclosing one). */
  void commitBuffer() {
    commitBuffer(p -> true);
  }

  /** Keeps the findings of the innermost buffer that {@code keep} accepts, and drops the others. */
  void commitBuffer(Predicate<Pending> keep) {
    List<Pending> top = buffers.pop();
    for (Pending p : top) {
      if (!keep.test(p)) {
        continue;
      }
      if (buffers.isEmpty()) {
        committed.putIfAbsent(key(p.finding()), p.finding());
      } else {
        buffers.peek().add(p);
      }
    }
  }

  /** Drops the findings of the innermost buffer. */
  void discardBuffer() {
    buffers.pop();
  }

  /** Reports a finding at {@code path} unless suppressed there or switched off. */
  void report(CheckId check, TreePath path, String message, boolean downgraded, Fix... fixes) {
    report(check, path, path, message, downgraded, fixes);
  }

  /**
   * {@link #report(CheckId, TreePath, String, boolean, Fix...)} for a finding found at {@code
   * trigger}.
   */
  void report(
      CheckId check,
      TreePath path,
      TreePath trigger,
      String message,
      boolean downgraded,
      Fix... fixes) {
    Severity severity = options.severity(check, downgraded);
    if (severity == Severity.OFF || suppressed(check, path)) {
      return;
    }
    Finding f = new Finding(check, severity, path.getLeaf(), message, Arrays.asList(fixes));
    if (buffers.isEmpty()) {
      committed.putIfAbsent(key(f), f);
    } else {
      buffers.peek().add(new Pending(f, trigger));
    }
  }

  /** One finding per check and tree. */
  private static String key(Finding f) {
    return f.check().name() + "@" + System.identityHashCode(f.tree());
  }

  List<Finding> findings() {
    return new ArrayList<>(committed.values());
  }

  private boolean suppressed(CheckId check, TreePath path) {
    for (TreePath p = path; p != null; p = p.getParentPath()) {
      Tree leaf = p.getLeaf();
      if (leaf instanceof MethodTree || leaf instanceof ClassTree || leaf instanceof VariableTree) {
        Element e = trees.getElement(p);
        if (e != null && suppresses(e, check)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether {@code check} is suppressed on the declaration of {@code e} (a field whose uses are
   * reported).
   */
  boolean suppressedAt(Element e, CheckId check) {
    return e != null && suppresses(e, check);
  }

  /**
   * The device a final {@code Device} field is initialised with, when its source is in this
   * compilation and the initializer's device is known ({@code Device.cpu()}, {@code
   * Device.cuda(1)}, {@code Device.cudaIfAvailable()}); null otherwise.
   */
  Place finalDevice(VariableElement field) {
    if (facts.finalDevices.containsKey(field)) {
      return facts.finalDevices.get(field);
    }
    facts.finalDevices.put(field, null);
    if (!field.getModifiers().contains(Modifier.FINAL)) {
      return null;
    }
    Value v = initializerValue(field);
    Place p = v != null && v.place().isKnown() ? v.place() : null;
    if (v == null) {
      // this(n, Device.cpu()), new KaplanMeierEstimator(): the device every object made holds
      ConstructedDevices.Constructed made = ConstructedDevices.of(field, this);
      if (made != null) {
        p = made.place();
        facts.constructedAt.put(field, made.sites());
      }
    }
    facts.finalDevices.put(field, p);
    return p;
  }

  /**
   * The {@code new}s that make every object of {@code field}'s class, where each holds one device
   * there that its constructors choose ({@link ConstructedDevices}); null otherwise.
   */
  List<TreePath> constructedAt(VariableElement field) {
    finalDevice(field);
    return facts.constructedAt.get(field);
  }

  /**
   * The field a {@code Device} argument names, where every object of its class made here holds the
   * CPU there by its constructors' choice ({@code out.to(device)} with {@code device} defaulting to
   * {@code Device.cpu()}); null otherwise.
   */
  VariableElement cpuByConstruction(TreePath deviceArgument) {
    Element e = trees.getElement(deviceArgument);
    return e instanceof VariableElement f
            && e.getKind() == ElementKind.FIELD
            && constructedAt(f) != null
            && Place.CPU.equals(finalDevice(f))
        ? f
        : null;
  }

  /**
   * The value of a static tensor field: its initializer's, when its source is in this compilation
   * (unknown without one: a cache assigned where it is first needed); else the CPU, where a static
   * tensor is created unless it says otherwise.
   */
  Value staticField(VariableElement field) {
    Value cached = facts.staticFields.get(field);
    if (cached != null) {
      return cached;
    }
    Value cpu = Value.fresh(Place.CPU);
    facts.staticFields.put(field, cpu);
    Value v = initializerValue(field);
    v = v == null ? cpu : v;
    facts.staticFields.put(field, v);
    return v;
  }

  /**
   * Whether a final tensor field of a class that is not a model is given a tensor made on the CPU
   * ({@code final Tensor classWeights = Tensor.of(new float[] {1f, 5f});} in a trainer): it stays
   * there, a tensor never moving in place. 0-dim tensors do not count.
   */
  boolean finalFieldOnTheCpu(VariableElement field) {
    Boolean known = facts.finalFieldsOnTheCpu.get(field);
    if (known == null) {
      facts.finalFieldsOnTheCpu.put(field, false);
      Value v = initializerValue(field); // null for a final field without an initializer
      if (v == null && !field.getModifiers().contains(Modifier.STATIC)) {
        v = constructorsValue(field);
      }
      known = v != null && Place.CPU.equals(v.place()) && !v.cpuScalarLike();
      facts.finalFieldsOnTheCpu.put(field, known);
    }
    return known;
  }

  /**
   * The initializer of a mutable tensor field of a class that is not a model, where it makes the
   * field on the CPU and the field only ever accumulates into itself ({@code Tensor rhoLoss =
   * Tensor.of(new float[0]);}, then {@code rhoLoss = Tensor.cat(List.of(rhoLoss, loss))}): the
   * field stays there. Null otherwise; 0-dim tensors do not count.
   */
  TreePath cpuAccumulatorStart(VariableElement field) {
    Optional<TreePath> known = facts.cpuAccumulators.get(field);
    if (known == null) {
      facts.cpuAccumulators.put(field, Optional.empty());
      TreePath start = CpuAccumulators.accumulatingInitializer(this, field);
      Value v = start == null ? null : detachedValue(start, field);
      known =
          Optional.ofNullable(
              v != null && Place.CPU.equals(v.place()) && !v.cpuScalarLike() ? start : null);
      facts.cpuAccumulators.put(field, known);
    }
    return known.orElse(null);
  }

  /**
   * What the constructors of its class give a final instance field without an initializer ({@code
   * this.classWeight = weights == null ? null : Tensor.of(weights);}), each assignment interpreted
   * on its own without reporting, joined over the constructors; null where a constructor that does
   * not delegate to another ({@code this(...)}) gives it nothing seen, or the source is not here.
   */
  private Value constructorsValue(VariableElement field) {
    Value joined = null;
    for (Element member : field.getEnclosingElement().getEnclosedElements()) {
      TreePath constructor = member.getKind() == ElementKind.CONSTRUCTOR ? pathOf(member) : null;
      if (constructor == null
          || !(constructor.getLeaf() instanceof MethodTree tree)
          || tree.getBody() == null
          || TreeSearch.contains(
              tree.getBody(),
              t ->
                  t instanceof MethodInvocationTree call
                      && call.getMethodSelect() instanceof IdentifierTree id
                      && id.getName().contentEquals("this"),
              t -> false)) {
        if (constructor == null && member.getKind() == ElementKind.CONSTRUCTOR) {
          return null;
        }
        continue;
      }
      Value given = null;
      for (com.sun.source.tree.StatementTree st : tree.getBody().getStatements()) {
        if (st instanceof com.sun.source.tree.ExpressionStatementTree es
            && es.getExpression() instanceof com.sun.source.tree.AssignmentTree a
            && trees.getElement(
                    new TreePath(
                        new TreePath(
                            new TreePath(new TreePath(constructor, tree.getBody()), st), a),
                        a.getVariable()))
                == field) {
          TreePath rhs =
              new TreePath(
                  new TreePath(new TreePath(new TreePath(constructor, tree.getBody()), st), a),
                  a.getExpression());
          given = detachedValue(rhs, field);
        }
      }
      if (given == null) {
        return null;
      }
      joined = joined == null ? given : joined.join(given);
    }
    return joined;
  }

  /**
   * An expression's value interpreted on its own, without reporting, in the scope of {@code
   * member}'s class.
   */
  private Value detachedValue(TreePath expression, Element member) {
    return detachedValueIn(expression, member.getEnclosingElement());
  }

  /**
   * The device a {@code Device} expression of a constructor or its caller names, interpreted on its
   * own ({@code Device.cpu()}, a static field initialised to one); unknown for anything else.
   */
  Place devicePlace(TreePath expression) {
    TreePath type = expression;
    while (type != null && !(type.getLeaf() instanceof com.sun.source.tree.ClassTree)) {
      type = type.getParentPath();
    }
    Element owner = type == null ? null : trees.getElement(type);
    return detachedValueIn(expression, owner).place();
  }

  private Value detachedValueIn(TreePath expression, Element owner) {
    ModelScope scope =
        new ModelScope(
            runtimeTypes,
            owner instanceof TypeElement typeElement ? typeElement : null,
            null,
            false);
    pushBuffer();
    try {
      return new MethodInterpreter(this, scope, null, Env.start(), false).expression(expression);
    } catch (RuntimeException e) {
      return Value.UNKNOWN;
    } finally {
      discardBuffer();
    }
  }

  /**
   * The value of a field's initializer, interpreted without reporting; unknown for a mutable field
   * without one, null when its source is not in this compilation or it is final without one.
   */
  private Value initializerValue(VariableElement field) {
    TreePath path = pathOf(field);
    if (path == null || !(path.getLeaf() instanceof VariableTree variable)) {
      return null;
    }
    if (variable.getInitializer() == null) {
      // A final one is assigned once, in a static block: a constant as any other. A mutable one is
      // a cache, assigned where it is first needed, on a device not known here.
      return field.getModifiers().contains(Modifier.FINAL) ? null : Value.UNKNOWN;
    }
    return detachedValue(new TreePath(path, variable.getInitializer()), field);
  }

  private boolean suppresses(Element e, CheckId check) {
    return suppressionLists
        .computeIfAbsent(
            e,
            k -> {
              AnnotationMirror s = runtimeTypes.annotations().find(k, SuppressWarnings.class);
              return s == null ? List.of() : AnnotationReader.strings(s, "value");
            })
        .contains(check.id());
  }
}
