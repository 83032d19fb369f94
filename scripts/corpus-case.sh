#!/usr/bin/env bash
# Checks corpus cases by hand, as CorpusTest does in the build:
#   scripts/corpus-case.sh samples/corpus/bugs/Foo.java [more files...]
# For each file: (1) compiles it with the processor and prints the device diagnostics; (2) compiles
# it with the analysis off and calls its public static run(Device) on an emulated cuda:0, printing
# what it threw or "completed". Run `mvn install -DskipTests` once first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="$root/samples/target-corpus"
mkdir -p "$cache"
if [ ! -s "$cache/classpath" ]; then
  (cd "$root" && mvn -q -B -ntp -pl samples dependency:build-classpath -Dmdep.includeScope=compile \
    -Dmdep.outputFile="$cache/classpath" >/dev/null)
fi
cp="$(cat "$cache/classpath")"
if [ ! -f "$cache/runner/CorpusRun.class" ]; then
  mkdir -p "$cache/runner"
  cat > "$cache/runner/CorpusRun.java" <<'JAVA'
public final class CorpusRun {
  public static void main(String[] args) throws Exception {
    Class<?> type = Class.forName(args[0]);
    Object device = Class.forName("dev.ondevice.Device").getMethod("parse", String.class).invoke(null, "cuda:0");
    try {
      type.getMethod("run", device.getClass()).invoke(null, device);
      System.out.println("outcome: completed");
    } catch (java.lang.reflect.InvocationTargetException e) {
      Throwable t = e.getCause();
      System.out.println("outcome: threw " + t.getClass().getSimpleName() + ": " + t.getMessage());
    }
  }
}
JAVA
  javac -d "$cache/runner" "$cache/runner/CorpusRun.java"
fi
for file in "$@"; do
  echo "== $file"
  out="$(mktemp -d)"
  echo "-- diagnostics (analysis on)"
  diagnostics="$(javac -proc:full -cp "$cp" -processorpath "$cp" -Aondevice.analysis=on -d "$out" "$file" 2>&1 || true)"
  grep -E '^[^ ].*(error|warning):' <<< "$diagnostics" || echo "(none)"
  rm -rf "$out"; out="$(mktemp -d)"
  if javac -proc:full -cp "$cp" -processorpath "$cp" -Aondevice.analysis=off -d "$out" "$file" > "$out.log" 2>&1; then
    pkg="$(sed -n 's/^package \(.*\);/\1/p' "$file" | head -1)"
    name="$(basename "$file" .java)"
    java -Dondevice.emulatedCudaDevices=2 --enable-native-access=ALL-UNNAMED -cp "$out:$cp:$cache/runner" CorpusRun "$pkg.$name" 2>&1 | tail -3
  else
    echo "-- does not compile with the analysis off:"; cat "$out.log"
  fi
  rm -rf "$out" "$out.log"
done
