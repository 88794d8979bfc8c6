#!/usr/bin/env bash
# Infuse on a Hadoop YARN cluster with spark-submit (Spark 3.5, Scala 2.12), in cluster deploy mode.
#
#   conf/submit/yarn.sh                  # the Synthetic Mixed Training chain on QuALITY, ingest to report
#   conf/submit/yarn.sh chunk --max-tokens 512   # one job, with the same Spark settings
#
# Edit the variables below (or set them in the environment). Each job is one Spark application; a failed
# job stops the chain, and rerunning the script resumes: every Infuse write is idempotent. README.md,
# "Deploy", explains each setting; docs/DJL.md the libtorch choice.
set -euo pipefail

INFUSE_HOME=${INFUSE_HOME:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SPARK_SUBMIT=${SPARK_SUBMIT:-spark-submit}
# The shaded jar from `mvn -B -DskipTests package`; spark-submit uploads a local jar to the cluster.
JAR=${JAR:-$INFUSE_HOME/jobs/target/infuse-jobs-0.1.0-SNAPSHOT-all.jar}
# Delta on HDFS is safe with several writers; on s3a:// only one job may write at a time (README.md).
WAREHOUSE=${WAREHOUSE:-hdfs:///infuse/warehouse}
INPUT=${INPUT:-hdfs:///infuse/raw/quality/}
# train writes the model in the driver, and the executors read it in answer: a path every node mounts.
MODEL_DIR=${MODEL_DIR:-/mnt/shared/infuse/models/smt-mixed}
# An OpenAI-compatible server (vLLM, SGLang, TGI) for generation and the RAG answers.
LLM_BASE_URL=${LLM_BASE_URL:-http://YOUR-VLLM-HOST:8000/v1}
LLM_MODEL=${LLM_MODEL:-meta-llama/Llama-3.1-8B-Instruct}
QUEUE=${QUEUE:-default}
DRIVER_MEMORY=${DRIVER_MEMORY:-6g}
EXECUTOR_MEMORY=${EXECUTOR_MEMORY:-10g}
EXECUTOR_CORES=${EXECUTOR_CORES:-4}
NUM_EXECUTORS=${NUM_EXECUTORS:-4}
# GPU executors (and a GPU driver for train): true needs YARN GPU scheduling (yarn.io/gpu) and the discovery
# script installed at GPU_DISCOVERY_SCRIPT on every node (copy conf/gpu/getGpusResources.sh there).
USE_GPU=${USE_GPU:-false}
GPU_DISCOVERY_SCRIPT=${GPU_DISCOVERY_SCRIPT:-/opt/infuse/conf/gpu/getGpusResources.sh}
# The GPU share of one task: 1 / EXECUTOR_CORES, so that every core's task runs on the executor's GPU.
TASK_GPU_AMOUNT=${TASK_GPU_AMOUNT:-0.25}
# libtorch is not in the shaded jar: the CPU build, or with USE_GPU the CUDA 12.8 build (docs/DJL.md),
# both from Maven Central (ai.djl.pytorch:pytorch-native-cpu / pytorch-native-cu128, 2.7.1, linux-x86_64).
LIBTORCH_DIR=${LIBTORCH_DIR:-$INFUSE_HOME/lib}
if [[ $USE_GPU == true ]]; then
  LIBTORCH_JAR=${LIBTORCH_JAR:-$LIBTORCH_DIR/pytorch-native-cu128-2.7.1-linux-x86_64.jar}
else
  LIBTORCH_JAR=${LIBTORCH_JAR:-$LIBTORCH_DIR/pytorch-native-cpu-2.7.1-linux-x86_64.jar}
fi

# In cluster mode the driver runs in a YARN container, where the repository's conf/ does not exist: ship
# it as an archive that YARN unpacks as ./conf in every container, so conf/... paths (the --config files,
# run.prompts_dir, shards.mixture) resolve there as they do in the repository.
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
tar -czf "$WORK/conf.tgz" -C "$INFUSE_HOME/conf" .

SUBMIT_ARGS=(
  --master yarn
  --deploy-mode cluster
  --queue "$QUEUE"
  --class dev.infuse.jobs.Main
  --driver-memory "$DRIVER_MEMORY"
  --executor-memory "$EXECUTOR_MEMORY"
  --executor-cores "$EXECUTOR_CORES"
  --num-executors "$NUM_EXECUTORS"
  --archives "$WORK/conf.tgz#conf"
  --jars "$LIBTORCH_JAR"
  --conf spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension
  --conf spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog
  # Delta's single-driver log store for S3 paths (its default; named so that it is visible).
  --conf spark.delta.logStore.s3a.impl=io.delta.storage.S3SingleDriverLogStore
  # Never download a model or a native library at run time.
  --conf spark.driver.extraJavaOptions=-Dai.djl.offline=true
  --conf "spark.executor.extraJavaOptions=-Dai.djl.offline=true -Dai.djl.pytorch.num_threads=1"
  --conf "spark.yarn.appMasterEnv.INFUSE_GIT_SHA=$(git -C "$INFUSE_HOME" rev-parse HEAD 2>/dev/null || echo unknown)"
)
# One GPU per executor, shared by its tasks (DJL's device auto takes GPU 0 of the container, so the
# executor must see exactly its own GPU: keep the amount at 1, with YARN's GPU isolation on).
GPU_EXECUTOR_ARGS=(
  --conf spark.executor.resource.gpu.amount=1
  --conf "spark.task.resource.gpu.amount=$TASK_GPU_AMOUNT"
  --conf "spark.executor.resource.gpu.discoveryScript=$GPU_DISCOVERY_SCRIPT"
)
GPU_DRIVER_ARGS=(
  --conf spark.driver.resource.gpu.amount=1
  --conf "spark.driver.resource.gpu.discoveryScript=$GPU_DISCOVERY_SCRIPT"
)
if [[ $USE_GPU == true ]]; then
  SUBMIT_ARGS+=("${GPU_EXECUTOR_ARGS[@]}")
fi
LLM_ARGS=(--set llm.backend=openai --set "llm.base_url=$LLM_BASE_URL" --set "llm.model=$LLM_MODEL")

# submit JOB [OPTION...]: one Infuse job as one Spark application.
submit() {
  local job=$1
  shift
  "$SPARK_SUBMIT" "${SUBMIT_ARGS[@]}" "$JAR" "$job" --warehouse "$WAREHOUSE" "$@"
}

# submit_gpu_driver JOB [OPTION...]: as submit, with a GPU for the driver, where train runs.
submit_gpu_driver() {
  if [[ $USE_GPU == true ]]; then
    local job=$1
    shift
    "$SPARK_SUBMIT" "${SUBMIT_ARGS[@]}" "${GPU_DRIVER_ARGS[@]}" "$JAR" "$job" --warehouse "$WAREHOUSE" "$@"
  else
    submit "$@"
  fi
}

if [[ $# -gt 0 ]]; then
  submit "$@"
  exit
fi

submit ingest --format quality --input "$INPUT"
submit chunk --corpus quality
submit embed --device auto
submit gen-qa --set gen_qa.corpus=quality "${LLM_ARGS[@]}"
submit gen-docs --set gen_docs.corpus=quality "${LLM_ARGS[@]}"
submit build-shards --mixture conf/mixtures/smt-mixed.yaml --output "$WAREHOUSE/shards/smt-mixed" \
  --set shards.corpus=quality --set 'shards.decontamination.benchmarks=[quality]'
submit_gpu_driver train --shards "$WAREHOUSE/shards/smt-mixed" --model-dir "$MODEL_DIR" --device auto
submit index
submit retrieve --benchmark quality --retriever hybrid --k 8
submit answer --benchmark quality --setting rag --k 8 "${LLM_ARGS[@]}"
submit answer --benchmark quality --setting trained_rag --k 8 --model-dir "$MODEL_DIR"
submit score
submit report --title "Synthetic Mixed Training on QuALITY"
