#!/usr/bin/env bash
# Spark's GPU discovery script: prints this machine's NVIDIA GPUs as the resource JSON Spark reads at
# executor (and driver) start, {"name":"gpu","addresses":["0","1",...]}. Name it in
# spark.executor.resource.gpu.discoveryScript (and spark.driver.resource.gpu.discoveryScript); it must be
# executable at that path on every node (conf/submit/yarn.sh and kubernetes.sh show where). Under YARN
# GPU isolation or the Kubernetes device plugin, nvidia-smi sees only the container's GPUs.
set -euo pipefail

if ! indices=$(nvidia-smi --query-gpu=index --format=csv,noheader); then
  echo "getGpusResources.sh: nvidia-smi failed; is the NVIDIA driver installed on this node?" >&2
  exit 1
fi
addresses=""
while IFS= read -r index; do
  index=${index//[[:space:]]/}
  [[ -z $index ]] && continue
  if [[ ! $index =~ ^[0-9]+$ ]]; then
    echo "getGpusResources.sh: nvidia-smi printed '$index', expected a GPU index" >&2
    exit 1
  fi
  addresses+="${addresses:+,}\"$index\""
done <<<"$indices"
printf '{"name":"gpu","addresses":[%s]}\n' "$addresses"
