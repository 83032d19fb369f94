package dev.ondevice.processor.analysis;

import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.ExpressionStatementTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.StatementTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.util.HashMap;
import java.util.Map;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.Name;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;

/**
 * The final {@code Device} field of a model class that each of its constructors moves the model to:
 * {@code this.device = device; toDevice(device);}, PyTorch's {@code self.device = device;
 * self.to(device)}. Such a model is where that field says, so its state and what its methods move
 * to {@code device} are on one device.
 */
final class DeviceField {
  private DeviceField() {}

  /** The field, or null where a constructor does not move the model to one final device field. */
  static VariableElement movedTo(TypeElement type, Trees trees, RuntimeTypes rt) {
    VariableElement found = null;
    boolean constructors = false;
    for (Element member : type.getEnclosedElements()) {
      if (member.getKind() != ElementKind.CONSTRUCTOR) {
        continue;
      }
      MethodTree tree = trees.getTree((ExecutableElement) member);
      if (tree == null || tree.getBody() == null) {
        return null;
      }
      VariableElement field = movedTo(tree, type, rt);
      if (field == null || (found != null && found != field)) {
        return null;
      }
      found = field;
      constructors = true;
    }
    return constructors ? found : null;
  }

  /**
   * The static {@code Device} field that every move of a model of {@code type} in its source file
   * names ({@code model.toDevice(device)} with Python's global {@code device}), where there is at
   * least one move and its constructors do not move it; else null. Such a model's own code may make
   * its tensors on that field's device.
   */
  static VariableElement globalMovedTo(TypeElement type, Trees trees, RuntimeTypes rt) {
    TreePath typePath = trees.getPath(type);
    if (typePath == null) {
      return null;
    }
    VariableElement[] found = {null};
    boolean[] other = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitMethodInvocation(MethodInvocationTree call, Void unused) {
        if (!other[0]
            && call.getArguments().size() == 1
            && movesA(call, type, getCurrentPath(), trees)) {
          Element argument =
              trees.getElement(new TreePath(getCurrentPath(), call.getArguments().get(0)));
          boolean global =
              argument instanceof VariableElement f
                  && f.getKind() == ElementKind.FIELD
                  && f.getModifiers().contains(Modifier.STATIC)
                  && rt.isDevice(f.asType());
          if (!global || (found[0] != null && found[0] != argument)) {
            other[0] = true;
          } else {
            found[0] = (VariableElement) argument;
          }
        }
        return super.visitMethodInvocation(call, null);
      }
    }.scan(new TreePath(typePath.getCompilationUnit()), null);
    return other[0] ? null : found[0];
  }

  /**
   * Whether {@code call} is {@code toDevice} of a model of {@code type}, named or implicit ({@code
   * toDevice(d)} in it).
   */
  private static boolean movesA(
      MethodInvocationTree call, TypeElement type, TreePath path, Trees trees) {
    ExpressionTree select = call.getMethodSelect();
    Name name =
        select instanceof IdentifierTree id
            ? id.getName()
            : select instanceof MemberSelectTree m ? m.getIdentifier() : null;
    if (name == null || !name.contentEquals("toDevice")) {
      return false;
    }
    if (select instanceof IdentifierTree) {
      for (TreePath p = path; p != null; p = p.getParentPath()) {
        if (p.getLeaf() instanceof com.sun.source.tree.ClassTree && trees.getElement(p) == type) {
          return true;
        }
      }
      return false;
    }
    javax.lang.model.type.TypeMirror receiver =
        trees.getTypeMirror(
            new TreePath(new TreePath(path, select), ((MemberSelectTree) select).getExpression()));
    return receiver instanceof javax.lang.model.type.DeclaredType d && d.asElement() == type;
  }

  /** The field one constructor moves the model to, reading its top-level statements in order. */
  private static VariableElement movedTo(
      MethodTree constructor, TypeElement type, RuntimeTypes rt) {
    Map<Name, VariableElement> assignedFrom =
        new HashMap<>(); // parameter name -> the field given it
    VariableElement moved = null;
    for (StatementTree s : constructor.getBody().getStatements()) {
      if (!(s instanceof ExpressionStatementTree statement)) {
        continue;
      }
      ExpressionTree e = statement.getExpression();
      if (e instanceof AssignmentTree assignment
          && MethodInterpreter.skipParens(assignment.getExpression())
              instanceof IdentifierTree value) {
        VariableElement field = deviceField(assignment.getVariable(), type, rt);
        if (field != null) {
          assignedFrom.put(value.getName(), field);
        }
      } else if (e instanceof MethodInvocationTree call
          && movesThis(call)
          && call.getArguments().size() == 1) {
        ExpressionTree argument = MethodInterpreter.skipParens(call.getArguments().get(0));
        VariableElement field =
            argument instanceof IdentifierTree id && isParameter(constructor, id.getName())
                ? assignedFrom.get(id.getName())
                : deviceField(argument, type, rt);
        if (field == null || (moved != null && moved != field)) {
          return null;
        }
        moved = field;
      }
    }
    return moved;
  }

  private static boolean isParameter(MethodTree method, Name name) {
    return method.getParameters().stream().anyMatch(p -> p.getName().contentEquals(name));
  }

  /**
   * Whether a call is {@code toDevice(..)} or {@code this.toDevice(..)}: the model moving itself.
   */
  private static boolean movesThis(MethodInvocationTree call) {
    ExpressionTree select = call.getMethodSelect();
    return select instanceof IdentifierTree id
        ? id.getName().contentEquals("toDevice")
        : select instanceof MemberSelectTree m
            && m.getIdentifier().contentEquals("toDevice")
            && m.getExpression() instanceof IdentifierTree self
            && self.getName().contentEquals("this");
  }

  /**
   * The final {@code Device} field of {@code type} that {@code e} names ({@code device}, {@code
   * this.device}), or null.
   */
  private static VariableElement deviceField(ExpressionTree e, TypeElement type, RuntimeTypes rt) {
    Name name =
        e instanceof IdentifierTree id
            ? id.getName()
            : e instanceof MemberSelectTree m
                    && m.getExpression() instanceof IdentifierTree self
                    && self.getName().contentEquals("this")
                ? m.getIdentifier()
                : null;
    if (name == null) {
      return null;
    }
    for (Element member : type.getEnclosedElements()) {
      if (member instanceof VariableElement field
          && member.getKind() == ElementKind.FIELD
          && field.getSimpleName().contentEquals(name)
          && field.getModifiers().contains(Modifier.FINAL)
          && !field.getModifiers().contains(Modifier.STATIC)
          && rt.isDevice(field.asType())) {
        return field;
      }
    }
    return null;
  }
}
