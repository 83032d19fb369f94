package dev.ondevice.processor.analysis;

import com.sun.source.tree.Tree;
import com.sun.source.util.TreeScanner;
import java.util.function.Predicate;

/** Whether a tree holds a node of some kind: a scan that stops at the first one. */
final class TreeSearch {
  private TreeSearch() {}

  /** Whether {@code root} or a node under it is {@code wanted}, not looking under nodes that are {@code skipped}. */
  static boolean contains(Tree root, Predicate<Tree> wanted, Predicate<Tree> skipped) {
    boolean[] found = {false};
    new TreeScanner<Void, Void>() {
      @Override
      public Void scan(Tree tree, Void unused) {
        if (found[0] || tree == null) {
          return null;
        }
        if (wanted.test(tree)) {
          found[0] = true;
          return null;
        }
        return skipped.test(tree) ? null : super.scan(tree, null);
      }
    }.scan(root, null);
    return found[0];
  }
}
