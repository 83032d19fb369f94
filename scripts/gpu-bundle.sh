#!/usr/bin/env bash
# Prepares gpu-bundle/ (git-ignored) for scripts/gpu-check.sh: a jlink'd Temurin 25 JRE (java.base,
# java.logging, jdk.unsupported, jdk.management for the host allocator's direct-memory limit, and
# java.xml and jdk.zipfs for JUnit's console launcher) and the
# jars it runs: the runtime (with its PTX), the runtime's tests, the benchmarks (CudaBenchmark) and
# the samples (its models), JCuda with only the natives it loads, and JUnit's console
# launcher. OpenBLAS's natives stay behind (20 MB): the CPU side of the tests uses the runtime's
# Java matrix kernel there. Run from anywhere; builds the project first. About 50 MB.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
jdk="${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}"
out="$root/gpu-bundle"
junit_platform=1.14.1
jcuda=12.0.0

# package, not install: the bundle takes the jars from each module's target/.
mvn -B -q -ntp package -DskipTests
rm -rf "$out"
mkdir -p "$out/lib"
"$jdk/bin/jlink" --add-modules java.base,java.logging,java.xml,jdk.management,jdk.unsupported,jdk.zipfs --strip-debug --no-man-pages \
  --no-header-files --compress zip-9 --output "$out/jre"

cp runtime/target/ondevice-runtime-*.jar annotations/target/ondevice-annotations-*.jar \
  samples/target/ondevice-samples-*.jar samples/benchmarks/target/ondevice-benchmarks-*.jar "$out/lib/"
(cd runtime/target/test-classes && jar cf "$out/lib/ondevice-runtime-tests.jar" .)
m2="${MAVEN_REPO:-$HOME/.m2/repository}"
for a in jcuda jcublas; do
  cp "$m2/org/jcuda/$a/$jcuda/$a-$jcuda.jar" "$out/lib/"
done
# JCuda's natives jar holds every JCuda library (24 MB for the PTX compiler alone); keep the driver's and cuBLAS's.
natives="$(mktemp -d)"
(cd "$natives" && unzip -q "$m2/org/jcuda/jcuda-natives/$jcuda/jcuda-natives-$jcuda-linux-x86_64.jar" \
  "lib/libJCudaDriver-$jcuda-linux-x86_64.so" && unzip -q \
  "$m2/org/jcuda/jcublas-natives/$jcuda/jcublas-natives-$jcuda-linux-x86_64.jar" "lib/libJCublas2-$jcuda-linux-x86_64.so" \
  && jar cf "$out/lib/jcuda-natives-slim.jar" lib)
rm -rf "$natives"
mvn -B -q -ntp dependency:copy -Dartifact="org.junit.platform:junit-platform-console-standalone:$junit_platform" \
  -DoutputDirectory="$out/lib"
du -sh "$out"
