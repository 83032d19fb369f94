#!/usr/bin/env bash
# The README's "Using it in your project", followed in a fresh project: installs the artifacts from
# this clone (mvn install -DskipTests) into a private local repository, writes the pom.xml, Net.java
# and Main.java that the README shows (the code blocks after its "<!-- newcomer: PATH -->" lines)
# into a new folder, compiles and runs the program with exec:java and with the plain java command,
# then checks that a device bug fails the build at compile time, and that a warning-level check is
# printed by a plain build but not by mvn -q (as docs/processor.md says); last, it sets up Error
# Prone from the blocks of docs/errorprone.md and checks its report and suggested fix of a device bug.
#
#   scripts/newcomer-check.sh            # reaches Maven Central for what the private repository lacks
#   NEWCOMER_OFFLINE=1 scripts/newcomer-check.sh   # offline: everything from the seed (below)
#
# The private repository is seeded with a copy of ~/.m2/repository (NEWCOMER_SEED), without any
# dev.ondevice artifact, so that nothing installed earlier stands in for this clone's. The clone's
# build output goes to target-newcomer folders, removed at the end. Set NEWCOMER_KEEP=1 to keep the
# temporary folder. Exits non-zero, naming the step, on any failure. About 70 s on two cores with
# a seeded repository; NEWCOMER_OFFLINE=1 works only where the seed also holds the plugins that a
# project without pinned versions gets from Maven 3.8 (maven-resources-plugin 2.6, ...), so the
# script is not part of .ci/run.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ondevice-newcomer.XXXXXX")
REPO="$WORK/m2"
PROJECT="$WORK/my-model"
SEED=${NEWCOMER_SEED:-$HOME/.m2/repository}
cleanup() {
  find "$ROOT" -maxdepth 3 -type d -name target-newcomer -prune -exec rm -rf {} +
  if [ "${NEWCOMER_KEEP:-0}" = 1 ]; then
    echo "== kept $WORK"
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT
MVN=(mvn -B -ntp -Dstyle.color=never -Dmaven.repo.local="$REPO")
if [ "${NEWCOMER_OFFLINE:-0}" = 1 ]; then
  MVN+=(-o)
fi
# Maven 3.8 prints colour resets even in batch mode; the checks read plain text.
mvn_() {
  "${MVN[@]}" "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g'
}
fail() {
  echo "newcomer-check: FAILED: $*" >&2
  exit 1
}
# Writes each code block of a Markdown file that follows a "<!-- newcomer: PATH -->" line to
# $PROJECT/PATH, and prints the paths.
blocks() {
  awk -v dir="$PROJECT" '
    /^<!-- newcomer: .* -->$/ { path = $3; next }
    path != "" && /^```/ && !inside { inside = 1; file = dir "/" path; n = split(file, parts, "/");
      folder = substr(file, 1, length(file) - length(parts[n]) - 1); system("mkdir -p \"" folder "\"");
      printf "" > file; next }
    inside && /^```$/ { inside = 0; close(file); print path; path = ""; next }
    inside { print >> file }
  ' "$1"
}
start=$SECONDS

mkdir -p "$REPO"
if [ -d "$SEED" ]; then
  echo "== seeding the private repository $REPO from $SEED (without dev/ondevice)"
  cp -a "$SEED/." "$REPO/"
  rm -rf "$REPO/dev/ondevice"
fi

echo "== installing from the clone: mvn install -DskipTests"
(cd "$ROOT" && mvn_ -q install -DskipTests -Dbuild.folder=target-newcomer) \
  || fail "mvn install -DskipTests in $ROOT"
[ -f "$REPO/dev/ondevice/ondevice-runtime/0.1.0-SNAPSHOT/ondevice-runtime-0.1.0-SNAPSHOT.jar" ] \
  || fail "the runtime jar is not in the private repository"

echo "== writing the project from the README's blocks into $PROJECT"
mkdir -p "$PROJECT"
blocks "$ROOT/README.md"
for f in pom.xml src/main/java/org/example/Net.java src/main/java/org/example/Main.java; do
  [ -s "$PROJECT/$f" ] || fail "the README has no block for $f"
done

cd "$PROJECT"
echo "== mvn -q compile exec:java"
out=$(mvn_ -q compile exec:java) || { echo "$out"; fail "mvn -q compile exec:java"; }
echo "$out"
grep -q "^logits \[64, 10\] on cpu, class weights on cpu$" <<<"$out" || fail "the program's output: $out"

echo "== java --enable-native-access=ALL-UNNAMED -cp target/classes:\$(cat cp.txt) org.example.Main"
mvn_ -q dependency:build-classpath -Dmdep.outputFile=cp.txt || fail "mvn dependency:build-classpath"
out=$(java --enable-native-access=ALL-UNNAMED -cp "target/classes:$(cat cp.txt)" org.example.Main 2>&1) \
  || { echo "$out"; fail "the plain java command"; }
echo "$out"
grep -q "^logits \[64, 10\] on cpu" <<<"$out" || fail "the program's output under java: $out"

echo "== a device bug: @Buffer left off classWeights, so mvn -q compile must fail at that field"
sed -i 's/  @Buffer Tensor classWeights/  Tensor classWeights/' src/main/java/org/example/Net.java
if out=$(mvn_ -q compile); then
  echo "$out"
  fail "the build passed with an unregistered tensor field"
fi
grep "Net.java" <<<"$out" | grep "Tensor field classWeights is not registered with its model" \
  || { echo "$out"; fail "no compile error naming classWeights"; }
sed -i 's/  Tensor classWeights/  @Buffer Tensor classWeights/' src/main/java/org/example/Net.java

echo "== a device bug in a method body: x.to(device) whose result is dropped"
cat > src/main/java/org/example/Dropped.java <<'EOF'
package org.example;

import dev.ondevice.Device;
import dev.ondevice.Tensor;

class Dropped {
  static Tensor run(Device device) {
    Tensor x = Tensor.randn(4, 784);
    x.to(device);
    return new Net().forward(x);
  }
}
EOF
if out=$(mvn_ -q compile); then
  echo "$out"
  fail "the build passed with a dropped move"
fi
grep "Dropped.java" <<<"$out" | grep "\[DiscardedMove\]" || { echo "$out"; fail "no DiscardedMove error"; }
rm src/main/java/org/example/Dropped.java

echo "== a warning-level check (HostSyncInLoop): printed by mvn compile, not by mvn -q compile"
cat > src/main/java/org/example/Summed.java <<'EOF'
package org.example;

import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.nn.CrossEntropyLoss;

class Summed {
  static double train(Net net, DataLoader loader, Device device) {
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    double total = 0;
    for (Batch b : loader) {
      Tensor xb = b.inputs().to(device);
      Tensor yb = b.targets().to(device);
      Tensor loss = criterion.forward(net.forward(xb), yb);
      loss.backward();
      total += loss.item();
    }
    return total;
  }
}
EOF
out=$(mvn_ compile) || { echo "$out"; fail "mvn compile with a warning"; }
grep "Summed.java" <<<"$out" | grep "\[HostSyncInLoop\]" || { echo "$out"; fail "no HostSyncInLoop warning in a plain build"; }
rm -rf target/classes
out=$(mvn_ -q compile) || { echo "$out"; fail "mvn -q compile with a warning"; }
if grep -q "HostSyncInLoop" <<<"$out"; then
  echo "$out"
  fail "mvn -q printed the warning: docs/processor.md says it does not"
fi
echo "   (mvn -q compile printed nothing)"
echo "== the same with -Aondevice.check.HostSyncInLoop=error in the compiler's arguments: mvn -q compile fails"
sed -i 's|<release>17</release>|<release>17</release><compilerArgs><arg>-Aondevice.check.HostSyncInLoop=error</arg></compilerArgs>|' pom.xml
rm -rf target/classes
out=$(mvn_ -q compile) && { echo "$out"; fail "-Aondevice.check.HostSyncInLoop=error did not fail the build"; }
grep "Summed.java" <<<"$out" | grep "\[HostSyncInLoop\]" || { echo "$out"; fail "no HostSyncInLoop error"; }
rm src/main/java/org/example/Summed.java

echo "== Error Prone as docs/errorprone.md sets it up: its compiler configuration, property and .mvn/jvm.config"
blocks "$ROOT/docs/errorprone.md"
for f in errorprone-plugin.xml errorprone-properties.xml .mvn/jvm.config; do
  [ -s "$f" ] || fail "docs/errorprone.md has no block for $f"
done
# The page's <configuration> replaces the README's one of the compiler plugin; its property joins the others.
awk '
  FNR == NR { if (/<configuration>/) keep = 1; if (keep) conf = conf $0 "\n"; if (/<\/configuration>/) keep = 0; next }
  /<artifactId>maven-compiler-plugin<\/artifactId>/ { compiler = 1 }
  compiler && /<configuration>/ { printf "%s", conf; skip = 1; next }
  skip { if (/<\/configuration>/) { skip = 0; compiler = 0 } next }
  { print }
' errorprone-plugin.xml pom.xml > pom.new && mv pom.new pom.xml
property=$(grep -v "properties>" errorprone-properties.xml)
awk -v p="$property" '/<\/properties>/ { print p } { print }' pom.xml > pom.new && mv pom.new pom.xml
grep -q "Xplugin:ErrorProne" pom.xml || fail "the Error Prone configuration did not reach pom.xml"
cat > src/main/java/org/example/Dropped.java <<'EOF'
package org.example;

import dev.ondevice.Device;
import dev.ondevice.Tensor;

class Dropped {
  static Tensor run(Device device) {
    Tensor x = Tensor.randn(4, 784);
    x.to(device);
    return new Net().forward(x);
  }
}
EOF
rm -rf target/classes
if out=$(mvn_ -q compile); then
  echo "$out"
  fail "the build under Error Prone passed with a dropped move"
fi
grep "Dropped.java" <<<"$out" | grep "\[DiscardedMove\]" || { echo "$out"; fail "no DiscardedMove error from Error Prone"; }
grep -q "Did you mean 'x = x.to(device);'" <<<"$out" || { echo "$out"; fail "no suggested fix from Error Prone"; }
rm src/main/java/org/example/Dropped.java
out=$(mvn_ -q compile exec:java) || { echo "$out"; fail "mvn -q compile exec:java under Error Prone"; }
grep -q "^logits \[64, 10\] on cpu" <<<"$out" || fail "the program's output under Error Prone: $out"
echo "   (Error Prone reported the dropped move with its fix; the program builds and runs under it)"

echo "newcomer-check: passed in $((SECONDS - start)) s"
