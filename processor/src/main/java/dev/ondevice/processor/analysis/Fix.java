package dev.ondevice.processor.analysis;

import com.sun.source.tree.Tree;
import java.util.List;

/** A mechanical fix for a finding: edits of the source, applied together. */
public final class Fix {
  /** One edit: replace a tree's source, or insert text before or after it. */
  public static final class Edit {
    /** What the edit does with its tree. */
    public enum Kind {
      /** Replace the tree's source by the text. */
      REPLACE,
      /** Insert the text before the tree. */
      PREFIX,
      /** Insert the text after the tree. */
      POSTFIX
    }

    private final Tree tree;
    private final Kind kind;
    private final String text;

    Edit(Tree tree, Kind kind, String text) {
      this.tree = tree;
      this.kind = kind;
      this.text = text;
    }

    /** The tree edited. */
    public Tree tree() {
      return tree;
    }

    /** Replace, prefix or postfix. */
    public Kind kind() {
      return kind;
    }

    /** The new text. */
    public String text() {
      return text;
    }
  }

  private final String description;
  private final List<Edit> edits;
  private final List<String> imports;

  Fix(String description, List<Edit> edits, List<String> imports) {
    this.description = description;
    this.edits = List.copyOf(edits);
    this.imports = List.copyOf(imports);
  }

  Fix(String description, List<Edit> edits) {
    this(description, edits, List.of());
  }

  static Edit replaceEdit(Tree tree, String text) {
    return new Edit(tree, Edit.Kind.REPLACE, text);
  }

  static Edit prefixEdit(Tree tree, String text) {
    return new Edit(tree, Edit.Kind.PREFIX, text);
  }

  static Edit postfixEdit(Tree tree, String text) {
    return new Edit(tree, Edit.Kind.POSTFIX, text);
  }

  static Fix replace(String description, Tree tree, String text) {
    return new Fix(description, List.of(new Edit(tree, Edit.Kind.REPLACE, text)));
  }

  static Fix prefix(String description, Tree tree, String text) {
    return new Fix(description, List.of(new Edit(tree, Edit.Kind.PREFIX, text)));
  }

  /** What the fix does, for people. */
  public String description() {
    return description;
  }

  /** The edits. */
  public List<Edit> edits() {
    return edits;
  }

  /** Classes the edited code needs imported, by qualified name. */
  public List<String> imports() {
    return imports;
  }
}
