package dev.infuse.tests;

import dev.infuse.jobs.SparkTestSession;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * A Spark standalone cluster on 127.0.0.1 from the Maven jars alone, with no Spark distribution:
 * one {@code Master} and some {@code Worker} JVMs, each worker launching its executors as JVMs of
 * their own, and {@code SparkSubmit} to run the shaded jar on it.
 *
 * <p>Workers build an executor's classpath from {@code $SPARK_HOME/jars}, so this makes a
 * SPARK_HOME whose {@code jars/} links what a Spark distribution plus the cluster's libraries would
 * hold: every jar of {@code jobs/target/classpath.txt} that the shaded jar does not bundle (Spark,
 * Scala, Hadoop, Jackson, libtorch's natives). The application's own classes reach the executors
 * only through the shaded jar that spark-submit ships, as on EMR or Databricks.
 */
final class StandaloneCluster implements AutoCloseable {
  /** The module opens spark-submit's launcher adds on Java 17; SparkSubmit is started directly. */
  static final List<String> JAVA17_OPENS =
      Stream.of(
              "java.lang",
              "java.lang.invoke",
              "java.lang.reflect",
              "java.io",
              "java.net",
              "java.nio",
              "java.util",
              "java.util.concurrent",
              "java.util.concurrent.atomic",
              "jdk.internal.ref",
              "sun.nio.ch",
              "sun.nio.cs",
              "sun.security.action",
              "sun.util.calendar")
          .map(pkg -> "--add-opens=java.base/" + pkg + "=ALL-UNNAMED")
          .toList();

  private static final String EXECUTOR_MAIN =
      "org.apache.spark.executor.CoarseGrainedExecutorBackend";

  private static final long START_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(120);

  private final Path dir;
  private final Path sparkHome;
  private final Path shadedJar;
  private final String masterUrl;
  private final List<Process> daemons = new ArrayList<>();
  private final List<Path> workerDirs = new ArrayList<>();

  private StandaloneCluster(Path dir, Path sparkHome, Path shadedJar, int port) {
    this.dir = dir;
    this.sparkHome = sparkHome;
    this.shadedJar = shadedJar;
    this.masterUrl = "spark://127.0.0.1:" + port;
  }

  /**
   * Starts a master and {@code workers} workers of {@code coresPerWorker} cores and {@code
   * workerMemory} (a Spark size such as {@code 1500m}) each, and waits until every worker has
   * registered.
   */
  static StandaloneCluster start(int workers, int coresPerWorker, String workerMemory)
      throws IOException, InterruptedException {
    Path jobsTarget = SparkTestSession.repoRoot().resolve("jobs/target");
    Path shaded;
    try (Stream<Path> jars = Files.list(jobsTarget)) {
      shaded =
          jars.filter(p -> p.getFileName().toString().matches("infuse-jobs-.*-all\\.jar"))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "no shaded jar in " + jobsTarget + ": run mvn package first"));
    }
    Path dir = SparkTestSession.tempDir("standalone-cluster");
    Path sparkHome = dir.resolve("spark-home");
    Files.createDirectories(sparkHome.resolve("jars"));
    for (Path jar : platformJars(shaded, jobsTarget.resolve("classpath.txt"))) {
      Files.createSymbolicLink(sparkHome.resolve("jars").resolve(jar.getFileName()), jar);
    }
    StandaloneCluster cluster = new StandaloneCluster(dir, sparkHome, shaded, freePort());
    try {
      cluster.startDaemons(workers, coresPerWorker, workerMemory);
    } catch (IOException | InterruptedException | RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  /**
   * The jars of the jobs' compile classpath that the shaded jar does not bundle: a jar is bundled
   * when its first class is in the shaded jar (the shade plugin copies whole artifacts).
   */
  private static List<Path> platformJars(Path shaded, Path classpathFile) throws IOException {
    Set<String> bundled = new HashSet<>();
    try (JarFile jar = new JarFile(shaded.toFile())) {
      jar.stream().forEach(entry -> bundled.add(entry.getName()));
    }
    List<Path> platform = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (String entry : Files.readString(classpathFile).trim().split(":")) {
      Path jar = Path.of(entry);
      String firstClass;
      try (JarFile file = new JarFile(jar.toFile())) {
        firstClass =
            file.stream()
                .map(JarEntry::getName)
                .filter(n -> n.endsWith(".class") && !n.endsWith("module-info.class"))
                .findFirst()
                .orElse(null);
      }
      if ((firstClass == null || !bundled.contains(firstClass))
          && names.add(jar.getFileName().toString())) {
        platform.add(jar);
      }
    }
    return platform;
  }

  private void startDaemons(int workers, int coresPerWorker, String workerMemory)
      throws IOException, InterruptedException {
    int port = Integer.parseInt(masterUrl.substring(masterUrl.lastIndexOf(':') + 1));
    Path masterLog = dir.resolve("master.log");
    daemons.add(
        daemon(
            masterLog,
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            String.valueOf(port),
            "--webui-port",
            String.valueOf(freePort())));
    awaitLine(masterLog, "I have been elected leader");
    for (int i = 0; i < workers; i++) {
      Path workDir = dir.resolve("worker-" + i);
      workerDirs.add(workDir);
      Path log = dir.resolve("worker-" + i + ".log");
      daemons.add(
          daemon(
              log,
              "org.apache.spark.deploy.worker.Worker",
              masterUrl,
              "--host",
              "127.0.0.1",
              "--cores",
              String.valueOf(coresPerWorker),
              "--memory",
              workerMemory,
              "--work-dir",
              workDir.toString(),
              "--webui-port",
              String.valueOf(freePort())));
      awaitLine(log, "Successfully registered with master");
    }
  }

  /** A master or worker JVM: small heaps, since they only schedule. */
  private Process daemon(Path log, String mainClass, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(java(), "-Xmx256m"));
    command.addAll(JAVA17_OPENS);
    command.addAll(List.of("-cp", sparkHome.resolve("jars") + "/*", mainClass));
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    environment(builder.environment());
    return builder.start();
  }

  private void environment(Map<String, String> env) {
    env.put("SPARK_HOME", sparkHome.toString());
    env.put("SPARK_SCALA_VERSION", "2.12");
    env.put("SPARK_LOCAL_IP", "127.0.0.1");
    env.put("INFUSE_HOME", SparkTestSession.repoRoot().toString());
  }

  private static void awaitLine(Path log, String line) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT_NANOS;
    while (System.nanoTime() < deadline) {
      if (Files.exists(log) && Files.readString(log).contains(line)) {
        return;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(
        "no '" + line + "' in " + log + " after 120 s:\n" + Files.readString(log));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  String masterUrl() {
    return masterUrl;
  }

  /** The exit code and everything {@link #submit} printed. */
  record Submitted(int code, String output) {}

  /**
   * Runs {@code dev.infuse.jobs.Main} with {@code args} through {@code
   * org.apache.spark.deploy.SparkSubmit} in client mode against this cluster, the shaded jar as the
   * application jar, as a user's {@code spark-submit --class dev.infuse.jobs.Main} does. {@code
   * conf} are {@code --conf} settings; output goes to {@code log} as well.
   */
  Submitted submit(Path log, List<String> conf, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(java(), "-Xmx1500m"));
    command.addAll(JAVA17_OPENS);
    command.addAll(
        List.of(
            "-Dai.djl.offline=true",
            // train runs in the driver: libtorch's thread count changes the order of its float
            // sums, so the driver trains with the test JVM's count, or the losses differ in
            // their last bits from the local run's.
            "-Dai.djl.pytorch.num_threads=" + Integer.getInteger("ai.djl.pytorch.num_threads", 1),
            "-Dlog4j2.configurationFile=classpath:infuse-log4j2.properties",
            "-cp",
            sparkHome.resolve("jars") + "/*",
            "org.apache.spark.deploy.SparkSubmit",
            "--master",
            masterUrl,
            "--deploy-mode",
            "client",
            "--class",
            "dev.infuse.jobs.Main"));
    for (String setting : conf) {
      command.add("--conf");
      command.add(setting);
    }
    command.add(shadedJar.toString());
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(SparkTestSession.repoRoot().toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    environment(builder.environment());
    Process process = builder.start();
    if (!process.waitFor(40, TimeUnit.MINUTES)) {
      process.destroyForcibly().waitFor();
      return new Submitted(-1, Files.readString(log, StandardCharsets.UTF_8));
    }
    return new Submitted(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  /**
   * Each executor's log ({@code <work-dir>/<app>/<executor>/stderr}) for the applications this
   * cluster has run.
   */
  List<Path> executorLogs() throws IOException {
    List<Path> logs = new ArrayList<>();
    for (Path workDir : workerDirs) {
      if (!Files.isDirectory(workDir)) {
        continue;
      }
      try (Stream<Path> files = Files.walk(workDir, 3)) {
        files.filter(p -> p.getFileName().toString().equals("stderr")).sorted().forEach(logs::add);
      }
    }
    return logs;
  }

  /**
   * The live executor JVMs: the workers' child processes running {@code
   * CoarseGrainedExecutorBackend}, oldest first.
   */
  List<ProcessHandle> executors() {
    List<ProcessHandle> executors = new ArrayList<>();
    for (Process daemon : daemons.subList(1, daemons.size())) {
      daemon
          .descendants()
          .filter(ProcessHandle::isAlive)
          .filter(
              p ->
                  p.info()
                      .arguments()
                      .map(args -> List.of(args).contains(EXECUTOR_MAIN))
                      .orElse(false))
          .forEach(executors::add);
    }
    executors.sort(
        java.util.Comparator.comparing(
            p -> p.info().startInstant().orElse(java.time.Instant.EPOCH)));
    return executors;
  }

  /** Stops the workers (which stop their executors) and then the master. */
  @Override
  public void close() {
    for (int i = daemons.size() - 1; i >= 0; i--) {
      Process daemon = daemons.get(i);
      // Executors are the workers' children; stop them too when a worker dies without its hook.
      List<ProcessHandle> children = daemon.descendants().toList();
      daemon.destroy();
      try {
        if (!daemon.waitFor(20, TimeUnit.SECONDS)) {
          daemon.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      children.forEach(ProcessHandle::destroyForcibly);
    }
    daemons.clear();
  }

  /** Where the cluster's logs and work directories are, for failure messages. */
  Path dir() {
    return dir;
  }
}
