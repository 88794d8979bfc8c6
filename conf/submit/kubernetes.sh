#!/usr/bin/env bash
# Infuse on Kubernetes with spark-submit (Spark 3.5, Scala 2.12), in cluster deploy mode: the driver and the
# executors are pods of IMAGE.
#
#   conf/submit/kubernetes.sh                  # the Synthetic Mixed Training chain on QuALITY, ingest to report
#   conf/submit/kubernetes.sh chunk --max-tokens 512   # one job, with the same Spark settings
#
# IMAGE is an Apache Spark 3.5 image (apache/spark:3.5.x-scala2.12-java17-ubuntu, or an NVIDIA CUDA 12 base
# with Spark for USE_GPU) with Infuse added, so that nothing is uploaded and nothing downloaded at run time:
#   /opt/infuse/jars/infuse-jobs-0.1.0-SNAPSHOT-all.jar            the shaded jar (mvn -B -DskipTests package)
#   /opt/infuse/jars/pytorch-native-cpu-2.7.1-linux-x86_64.jar     libtorch (or -cu128- for USE_GPU; docs/DJL.md)
#   /opt/infuse/conf/                                              this repository's conf/ (prompts, mixtures)
#   /opt/spark/jars/hadoop-aws-3.3.4.jar, aws-java-sdk-bundle-1.12.262.jar   for s3a:// (Spark 3.5's Hadoop)
# A jar that is not in the image can be given as a local path instead of local://, with
# spark.kubernetes.file.upload.path set to an s3a:// prefix that the driver can read.
set -euo pipefail

SPARK_SUBMIT=${SPARK_SUBMIT:-spark-submit}
K8S_API=${K8S_API:-https://YOUR-KUBERNETES-API:6443}
NAMESPACE=${NAMESPACE:-infuse}
# A service account that may create and delete pods in NAMESPACE (the driver creates the executors):
#   kubectl -n infuse create serviceaccount spark
#   kubectl -n infuse create rolebinding spark --clusterrole=edit --serviceaccount=infuse:spark
SERVICE_ACCOUNT=${SERVICE_ACCOUNT:-spark}
IMAGE=${IMAGE:-YOUR-REGISTRY/infuse:0.1.0-SNAPSHOT}
INFUSE_IN_IMAGE=${INFUSE_IN_IMAGE:-/opt/infuse}
JAR=${JAR:-local://$INFUSE_IN_IMAGE/jars/infuse-jobs-0.1.0-SNAPSHOT-all.jar}
# Delta on s3a:// allows one writing job at a time (README.md, Deploy): run the chain, not jobs in parallel.
# Credentials come from the pods (IRSA, instance profile, or fs.s3a.* settings from a Kubernetes secret).
WAREHOUSE=${WAREHOUSE:-s3a://YOUR-BUCKET/infuse/warehouse}
INPUT=${INPUT:-s3a://YOUR-BUCKET/infuse/raw/quality/}
# train writes the model in the driver pod, and the executors read it in answer: a ReadWriteMany volume
# mounted at the same path in every pod (spark.kubernetes.*.volumes.persistentVolumeClaim.*, below).
MODEL_PVC=${MODEL_PVC:-infuse-models}
MODEL_MOUNT=${MODEL_MOUNT:-/mnt/models}
MODEL_DIR=${MODEL_DIR:-$MODEL_MOUNT/smt-mixed}
LLM_BASE_URL=${LLM_BASE_URL:-http://vllm.infuse.svc.cluster.local:8000/v1}
LLM_MODEL=${LLM_MODEL:-meta-llama/Llama-3.1-8B-Instruct}
DRIVER_MEMORY=${DRIVER_MEMORY:-6g}
EXECUTOR_MEMORY=${EXECUTOR_MEMORY:-10g}
EXECUTOR_CORES=${EXECUTOR_CORES:-4}
EXECUTOR_INSTANCES=${EXECUTOR_INSTANCES:-4}
# GPU executors (and a GPU driver for train): true needs the NVIDIA device plugin (resource nvidia.com/gpu)
# and an image with the CUDA 12.8 libtorch; the discovery script is the one in the image's conf/.
USE_GPU=${USE_GPU:-false}
GPU_DISCOVERY_SCRIPT=${GPU_DISCOVERY_SCRIPT:-$INFUSE_IN_IMAGE/conf/gpu/getGpusResources.sh}
# The GPU share of one task: 1 / EXECUTOR_CORES, so that every core's task runs on the executor's GPU.
TASK_GPU_AMOUNT=${TASK_GPU_AMOUNT:-0.25}
if [[ $USE_GPU == true ]]; then
  LIBTORCH_JAR=${LIBTORCH_JAR:-local://$INFUSE_IN_IMAGE/jars/pytorch-native-cu128-2.7.1-linux-x86_64.jar}
else
  LIBTORCH_JAR=${LIBTORCH_JAR:-local://$INFUSE_IN_IMAGE/jars/pytorch-native-cpu-2.7.1-linux-x86_64.jar}
fi

VOLUME=spark.kubernetes.driver.volumes.persistentVolumeClaim.models
EXECUTOR_VOLUME=spark.kubernetes.executor.volumes.persistentVolumeClaim.models
SUBMIT_ARGS=(
  --master "k8s://$K8S_API"
  --deploy-mode cluster
  --class dev.infuse.jobs.Main
  --driver-memory "$DRIVER_MEMORY"
  --executor-memory "$EXECUTOR_MEMORY"
  --executor-cores "$EXECUTOR_CORES"
  --num-executors "$EXECUTOR_INSTANCES"
  --jars "$LIBTORCH_JAR"
  --conf "spark.kubernetes.namespace=$NAMESPACE"
  --conf "spark.kubernetes.container.image=$IMAGE"
  --conf spark.kubernetes.container.image.pullPolicy=IfNotPresent
  --conf "spark.kubernetes.authenticate.driver.serviceAccountName=$SERVICE_ACCOUNT"
  --conf "$VOLUME.options.claimName=$MODEL_PVC"
  --conf "$VOLUME.mount.path=$MODEL_MOUNT"
  --conf "$EXECUTOR_VOLUME.options.claimName=$MODEL_PVC"
  --conf "$EXECUTOR_VOLUME.mount.path=$MODEL_MOUNT"
  --conf spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension
  --conf spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog
  # Delta's single-driver log store for s3a:// (its default; named so that it is visible).
  --conf spark.delta.logStore.s3a.impl=io.delta.storage.S3SingleDriverLogStore
  # conf/ from the image is the Infuse home: run.prompts_dir and shards.mixture resolve under it. Never
  # download a model or a native library at run time.
  --conf "spark.driver.extraJavaOptions=-Dai.djl.offline=true -Dinfuse.home=$INFUSE_IN_IMAGE"
  --conf "spark.executor.extraJavaOptions=-Dai.djl.offline=true -Dai.djl.pytorch.num_threads=1"
  --conf "spark.kubernetes.driverEnv.INFUSE_GIT_SHA=${INFUSE_GIT_SHA:-REPLACE_WITH_COMMIT}"
)
# One GPU per executor pod, shared by its tasks (the pod sees only its own GPU, as DJL's device auto needs).
GPU_EXECUTOR_ARGS=(
  --conf spark.executor.resource.gpu.amount=1
  --conf spark.executor.resource.gpu.vendor=nvidia.com
  --conf "spark.executor.resource.gpu.discoveryScript=$GPU_DISCOVERY_SCRIPT"
  --conf "spark.task.resource.gpu.amount=$TASK_GPU_AMOUNT"
)
GPU_DRIVER_ARGS=(
  --conf spark.driver.resource.gpu.amount=1
  --conf spark.driver.resource.gpu.vendor=nvidia.com
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

# submit_gpu_driver JOB [OPTION...]: as submit, with a GPU for the driver pod, where train runs.
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
