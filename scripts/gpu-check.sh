#!/usr/bin/env bash
# The CUDA backend on a real GPU: on a Linux machine with an NVIDIA GPU and no JDK, with the
# gpu-bundle/ that scripts/gpu-bundle.sh made elsewhere beside it. Runs the CUDA test suite (the
# cases of the cuda-backend execution of runtime/pom.xml) on cuda:0, then CudaBenchmark, then the
# same benchmark in PyTorch where python3 has torch with CUDA, and prints the figures side by side
# with the ratio OnDevice / PyTorch. Logs and JUnit reports go to $OUT (or gpu-check-out/).
# Argument: quick, for small sizes (a check of the script itself).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bundle="$root/gpu-bundle"
out="${OUT:-$root/gpu-check-out}"
mode="${1:-full}"
mkdir -p "$out"
java="$bundle/jre/bin/java"
if [ ! -x "$java" ]; then
  echo "gpu-check: $bundle/jre is missing; run scripts/gpu-bundle.sh on a machine with a JDK first" >&2
  exit 2
fi
cp="$(ls "$bundle"/lib/*.jar | grep -v console-standalone | tr '\n' ':')"
jvm=(--enable-native-access=ALL-UNNAMED -Xss8m -Xmx8g)

echo "== GPU"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -4

echo "== CUDA test suite on cuda:0"
# The classes of the cuda-backend execution in runtime/pom.xml.
classes='^dev\.ondevice\.((Pointwise|Reductions|Views|Gradient|Indexing|LinearAlgebra|LayerGradient|BadInput|Formatting|Creation|Autograd|DeviceConsistency|Transfer)Test|nn\..*Test|optim\..*Test|internal\.cuda\..*Test)$'
"$java" "${jvm[@]}" -Dondevice.test.devices=cuda:0 -jar "$bundle"/lib/junit-platform-console-standalone-*.jar \
  execute --class-path "$cp" --scan-class-path "$bundle/lib/ondevice-runtime-tests.jar" --include-classname "$classes" \
  --reports-dir "$out/junit" --details=summary --disable-banner 2>&1 | tee "$out/tests.log" | tail -25
tests=${PIPESTATUS[0]}

echo "== OnDevice benchmark"
"$java" "${jvm[@]}" -cp "$cp" dev.ondevice.benchmarks.CudaBenchmark "$mode" 2>&1 | tee "$out/ondevice.tsv"

if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2> /dev/null; then
  echo "== PyTorch benchmark"
  PYTHONUNBUFFERED=1 python3 "$root/scripts/gpu_bench.py" "$mode" 2>&1 | tee "$out/pytorch.tsv"
  echo "== Side by side"
  python3 "$root/scripts/gpu_table.py" "$out/ondevice.tsv" "$out/pytorch.tsv" | tee "$out/table.md"
else
  echo "== PyTorch with CUDA is not installed here: no side-by-side figures"
fi
exit "$tests"
