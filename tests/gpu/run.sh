#!/usr/bin/env bash
# The GPU device check: the train job and the djl backend on CUDA, through the same code as on CPU,
# printing tokens/s on the GPU and the CPU for the same model, and requiring the model's GPU and CPU
# logits to agree. For a machine with an NVIDIA GPU: it fails, never skips, where there is none.
#
# libtorch: DJL 0.36's JNI is built for libtorch 2.7.1, CPU or CUDA 12.8 (cu128). Give it one of:
#   - PYTORCH_LIBRARY_PATH=<dir with libtorch.so> (for example a pip torch 2.7.1+cu128's torch/lib),
#     found automatically from python3's torch when it is 2.7.1; or
#   - INFUSE_TORCH_NATIVE_JAR=<pytorch-native-cu128-2.7.1-linux-x86_64.jar> from Maven Central.
# Needs Maven and the project's dependencies in ~/.m2 (run `mvn -B install -DskipTests` once with network).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

if ! nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; then
  echo "gpu-check: nvidia-smi failed: no NVIDIA GPU or driver on this machine" >&2
  exit 1
fi

if [[ -z "${PYTORCH_LIBRARY_PATH:-}" && -z "${INFUSE_TORCH_NATIVE_JAR:-}" ]]; then
  TORCH_INFO="$(python3 -c 'import torch, os; print(torch.__version__, os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null || true)"
  if [[ "$TORCH_INFO" == 2.7.1* ]]; then
    export PYTORCH_LIBRARY_PATH="${TORCH_INFO#* }"
    export PYTORCH_VERSION=2.7.1
    export PYTORCH_FLAVOR="${PYTORCH_FLAVOR:-cu128}"
    echo "gpu-check: using python torch $TORCH_INFO"
  else
    echo "gpu-check: no CUDA libtorch 2.7.1 found (python torch: ${TORCH_INFO:-none}); set PYTORCH_LIBRARY_PATH" \
      "or INFUSE_TORCH_NATIVE_JAR. The check fails if the engine sees no GPU." >&2
  fi
fi

EXTRA_CP=()
if [[ -n "${INFUSE_TORCH_NATIVE_JAR:-}" ]]; then
  EXTRA_CP=("-Dmaven.test.additionalClasspath=${INFUSE_TORCH_NATIVE_JAR}")
fi

mvn -B -q -o install -DskipTests
# Every core for libtorch, so the CPU side of the comparison is fair.
status=0
mvn -B -o -pl tests verify -Dinfuse.excludedGroups= -Dgroups=gpu -Dtest=GpuTrainGenerateCheckTest \
  -Dsurefire.failIfNoSpecifiedTests=false -Dinfuse.test.torch_threads="$(nproc)" "${EXTRA_CP[@]}" | tail -5 \
  || status=$?
cat tests/target/surefire-reports/dev.infuse.tests.GpuTrainGenerateCheckTest-output.txt 2>/dev/null || true
# The check's result is Maven's: a missing GPU, a failed job or logits that disagree all fail it.
exit "$status"
