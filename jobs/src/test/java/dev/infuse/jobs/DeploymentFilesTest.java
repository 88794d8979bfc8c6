package dev.infuse.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.answer.AnswerConfig;
import dev.infuse.jobs.cli.ParsedCommands;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.shards.MixtureFiles;
import dev.infuse.jobs.shards.ShardsConfig;
import dev.infuse.jobs.train.TrainConfig;
import dev.infuse.jobs.train.TrainJob;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.spark.network.util.JavaUtils;
import org.apache.spark.resource.TaskResourceRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The deployment definitions under {@code conf/} (EMR steps, the Databricks job, the spark-submit
 * scripts for YARN and Kubernetes, the GPU discovery script) are complete and name only what
 * exists: every Infuse command line parses and loads its config, every class loads, every {@code
 * conf/} path is in the repository, every jar is the one this build makes, and every Spark setting
 * has a value of the right shape. Needs no SparkSession; the scripts run with a fake spark-submit.
 */
class DeploymentFilesTest {
  private static final Path REPO = repositoryRoot();
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The CUDA build of libtorch that DJL's JNI in the shaded jar is built for (docs/DJL.md). */
  private static final String CUDA_FLAVOUR = "cu128";

  private static final Pattern LIBTORCH_JAR =
      Pattern.compile("pytorch-native-([a-z0-9]+)-([0-9][0-9.]*)-linux-x86_64\\.jar");

  /** A path under the repository's conf/, wherever it was shipped: conf/x, /opt/infuse/conf/x. */
  private static final Pattern CONF_REFERENCE =
      Pattern.compile("(?<![A-Za-z0-9_.-])conf/[A-Za-z0-9_./-]*[A-Za-z0-9_]");

  private static final String END_OF_SUBMIT = "END-OF-SPARK-SUBMIT";

  private static final Set<String> EMR_ACTIONS =
      Set.of("TERMINATE_JOB_FLOW", "TERMINATE_CLUSTER", "CANCEL_AND_WAIT", "CONTINUE");

  @Test
  void emrStepsSubmitTheChainToYarnWithTheWarehouseOnS3() throws IOException {
    Path file = REPO.resolve("conf/emr/steps.json");
    List<String> problems = new ArrayList<>(confReferences(file));
    JsonNode steps = JSON.readTree(file.toFile());
    assertThat(steps.isArray() && !steps.isEmpty()).as(file + ": a non-empty array").isTrue();
    List<String> jobs = new ArrayList<>();
    Set<String> names = new HashSet<>();
    int number = 0;
    for (JsonNode step : steps) {
      String name = text(step, "Name");
      String where = file + " step #" + ++number;
      if (name.isBlank() || !names.add(name)) {
        problems.add(where + ": Name: got '" + name + "', expected a unique, non-empty name");
      }
      if (!EMR_ACTIONS.contains(text(step, "ActionOnFailure"))) {
        problems.add(
            where
                + ": ActionOnFailure: got '"
                + text(step, "ActionOnFailure")
                + "', expected one of "
                + EMR_ACTIONS);
      }
      JsonNode jarStep = step.path("HadoopJarStep");
      if (!text(jarStep, "Jar").equals("command-runner.jar")) {
        problems.add(
            where
                + ": HadoopJarStep.Jar: got '"
                + text(jarStep, "Jar")
                + "', expected command-runner.jar");
      }
      List<String> args = strings(jarStep.path("Args"));
      if (args.isEmpty() || !args.get(0).equals("spark-submit")) {
        problems.add(where + ": HadoopJarStep.Args: expected spark-submit and its arguments");
        continue;
      }
      Submission submission = Submission.parse(where, args.subList(1, args.size()), problems);
      problems.addAll(submission.check(Platform.EMR));
      jobs.add(submission.job());
    }
    problems.addAll(chain(file, jobs, "report"));
    assertNone(problems);
  }

  @Test
  void databricksJobRunsTheChainOnJobClusters() throws IOException {
    Path file = REPO.resolve("conf/databricks/job.json");
    List<String> problems = new ArrayList<>(confReferences(file));
    JsonNode job = JSON.readTree(file.toFile());
    if (text(job, "name").isBlank()) {
      problems.add(file + ": name: expected the job's name");
    }
    Map<String, JsonNode> clusters = new HashMap<>();
    for (JsonNode cluster : job.path("job_clusters")) {
      String key = text(cluster, "job_cluster_key");
      JsonNode spec = cluster.path("new_cluster");
      String where = file + " job cluster '" + key + "'";
      if (key.isBlank() || clusters.put(key, spec) != null) {
        problems.add(where + ": job_cluster_key: expected a unique, non-empty key");
      }
      if (!text(spec, "spark_version").contains("scala2.12")) {
        problems.add(
            where
                + ": new_cluster.spark_version: got '"
                + text(spec, "spark_version")
                + "', expected a Scala 2.12 runtime");
      }
      if (text(spec, "node_type_id").isBlank()
          || !(spec.has("num_workers") || spec.has("autoscale"))) {
        problems.add(where + ": new_cluster: expected node_type_id and num_workers or autoscale");
      }
      Map<String, String> conf = new LinkedHashMap<>();
      spec.path("spark_conf")
          .fields()
          .forEachRemaining(e -> conf.put(e.getKey(), e.getValue().asText()));
      problems.addAll(sparkConf(where, conf, Platform.DATABRICKS));
      String home = text(spec.path("spark_env_vars"), "INFUSE_HOME");
      if (home.isBlank() || !home.startsWith("/Volumes/")) {
        problems.add(
            where
                + ": spark_env_vars.INFUSE_HOME: got '"
                + home
                + "', expected the volume path that holds conf/ (the driver reads prompts and"
                + " mixtures there)");
      }
    }
    Set<String> keys = new HashSet<>();
    for (JsonNode task : job.path("tasks")) {
      keys.add(text(task, "task_key"));
    }
    List<String> jobs = new ArrayList<>();
    Set<String> done = new HashSet<>();
    for (JsonNode task : job.path("tasks")) {
      String key = text(task, "task_key");
      String where = file + " task '" + key + "'";
      if (key.isBlank()) {
        problems.add(where + ": task_key: expected a non-empty key");
      }
      for (JsonNode dependency : task.path("depends_on")) {
        String on = text(dependency, "task_key");
        if (!keys.contains(on)) {
          problems.add(where + ": depends_on: got '" + on + "', expected one of " + keys);
        } else if (!done.contains(on)) {
          problems.add(where + ": depends_on: '" + on + "' is listed later; list tasks in order");
        }
      }
      done.add(key);
      JsonNode cluster = clusters.get(text(task, "job_cluster_key"));
      if (cluster == null) {
        problems.add(
            where
                + ": job_cluster_key: got '"
                + text(task, "job_cluster_key")
                + "', expected one of "
                + clusters.keySet());
        continue;
      }
      boolean gpu = text(cluster, "spark_version").contains("gpu");
      List<String> jars = new ArrayList<>();
      for (JsonNode library : task.path("libraries")) {
        jars.add(text(library, "jar"));
      }
      problems.addAll(infuseJar(where + ": libraries", jars.isEmpty() ? "" : jars.get(0)));
      problems.addAll(
          libtorch(
              where + ": libraries", jars.subList(Math.min(1, jars.size()), jars.size()), gpu));
      JsonNode jarTask = task.path("spark_jar_task");
      problems.addAll(
          mainClass(where + ": spark_jar_task.main_class_name", text(jarTask, "main_class_name")));
      String home = text(cluster.path("spark_env_vars"), "INFUSE_HOME");
      InfuseCommand command =
          InfuseCommand.check(where, strings(jarTask.path("parameters")), problems);
      if (command == null) {
        continue;
      }
      jobs.add(command.job);
      for (String config : command.configFiles) {
        if (!config.startsWith(home + "/conf/")) {
          problems.add(
              where
                  + ": --config "
                  + config
                  + ": expected a file under INFUSE_HOME/conf/ ("
                  + home
                  + "/conf/), where conf/ is uploaded");
        }
      }
      String warehouse = command.config.warehouse();
      if (Warehouse.isSchema(warehouse)) {
        String files = command.config.run().filesDir();
        if (files == null || !files.startsWith("/Volumes/")) {
          problems.add(
              where
                  + ": run.files_dir: got '"
                  + files
                  + "', expected a volume (/Volumes/...) beside the Unity Catalog schema "
                  + warehouse
                  + ", whose managed storage refuses the journals' and shards' path writes");
        }
      } else if (!(warehouse.startsWith("/Volumes/") || warehouse.startsWith("dbfs:/"))) {
        problems.add(
            where
                + ": warehouse: got '"
                + warehouse
                + "', expected a Unity Catalog schema (catalog.schema) or a path (dbfs:/... or"
                + " /Volumes/...)");
      }
      if (command.args.contains("--device")
          && command.args.get(command.args.indexOf("--device") + 1).startsWith("gpu")
          && !gpu) {
        problems.add(
            where + ": --device gpu on job cluster without GPUs (spark_version without gpu)");
      }
    }
    if (keys.isEmpty()) {
      problems.add(file + ": tasks: expected at least one task");
    }
    problems.addAll(chain(file, jobs, "evaluate"));
    assertNone(problems);
  }

  @Test
  void yarnScriptSubmitsTheChainWithAndWithoutGpus(@TempDir Path tmp) throws Exception {
    checkScript(REPO.resolve("conf/submit/yarn.sh"), Platform.YARN, tmp);
  }

  @Test
  void kubernetesScriptSubmitsTheChainWithAndWithoutGpus(@TempDir Path tmp) throws Exception {
    checkScript(REPO.resolve("conf/submit/kubernetes.sh"), Platform.KUBERNETES, tmp);
  }

  @Test
  void gpuDiscoveryScriptPrintsSparksResourceJson(@TempDir Path tmp) throws Exception {
    Path script = REPO.resolve("conf/gpu/getGpusResources.sh");
    assertThat(Files.isExecutable(script)).as(script + ": expected an executable file").isTrue();
    assertThat(run(tmp, List.of("bash", "-n", script.toString()), Map.of()).code)
        .as(script + ": bash -n")
        .isZero();
    Path bin = Files.createDirectories(tmp.resolve("bin"));
    Path nvidiaSmi = bin.resolve("nvidia-smi");
    String path = bin + ":" + System.getenv("PATH");

    Files.writeString(nvidiaSmi, "#!/bin/sh\nprintf '0\\n1\\n'\n");
    nvidiaSmi.toFile().setExecutable(true);
    Result two = run(tmp, List.of(script.toString()), Map.of("PATH", path));
    assertThat(two.code).as(script + " with two GPUs: " + two.output).isZero();
    JsonNode resources = JSON.readTree(two.output);
    assertThat(resources.path("name").asText()).as(script + ": name").isEqualTo("gpu");
    assertThat(strings(resources.path("addresses")))
        .as(script + ": addresses")
        .containsExactly("0", "1");

    Files.writeString(nvidiaSmi, "#!/bin/sh\nexit 0\n");
    Result none = run(tmp, List.of(script.toString()), Map.of("PATH", path));
    assertThat(strings(JSON.readTree(none.output).path("addresses")))
        .as(script + " without GPUs")
        .isEmpty();

    Files.writeString(nvidiaSmi, "#!/bin/sh\nexit 9\n");
    assertThat(run(tmp, List.of(script.toString()), Map.of("PATH", path)).code)
        .as(script + ": a failing nvidia-smi must fail the script, not print no GPUs")
        .isNotZero();
  }

  // ---------------------------------------------------------------------------------------------

  /** The platforms, for what each one's Spark settings need. */
  private enum Platform {
    EMR,
    YARN,
    KUBERNETES,
    DATABRICKS
  }

  private static void checkScript(Path script, Platform platform, Path tmp) throws Exception {
    List<String> problems = new ArrayList<>(confReferences(script));
    Result syntax = run(tmp, List.of("bash", "-n", script.toString()), Map.of());
    assertThat(syntax.code).as(script + ": bash -n: " + syntax.output).isZero();
    assertThat(Files.isExecutable(script)).as(script + ": expected an executable file").isTrue();
    // spark-submit is a shell function that records its arguments: no process per submission.
    String capture =
        "spark_submit_capture() { printf '%s\\0' \"$@\" "
            + END_OF_SUBMIT
            + " >> \"$CAPTURE\"; }; "
            + "export -f spark_submit_capture; exec bash \"$0\"";
    for (String gpu : List.of("false", "true")) {
      Path calls = tmp.resolve("calls-" + gpu);
      Result result =
          run(
              tmp,
              List.of("bash", "-c", capture, script.toString()),
              Map.of(
                  "SPARK_SUBMIT",
                  "spark_submit_capture",
                  "CAPTURE",
                  calls.toString(),
                  "USE_GPU",
                  gpu));
      assertThat(result.code).as(script + " with USE_GPU=" + gpu + ": " + result.output).isZero();
      List<String> jobs = new ArrayList<>();
      List<String> args = new ArrayList<>();
      for (String arg : Files.readString(calls, StandardCharsets.UTF_8).split("\0")) {
        if (!arg.equals(END_OF_SUBMIT)) {
          args.add(arg);
          continue;
        }
        String where = script + " (USE_GPU=" + gpu + ") spark-submit #" + (jobs.size() + 1);
        Submission submission = Submission.parse(where, args, problems);
        args = new ArrayList<>();
        problems.addAll(submission.check(platform));
        jobs.add(submission.job());
        boolean gpuConf = submission.conf.containsKey("spark.executor.resource.gpu.amount");
        if (gpuConf != gpu.equals("true")) {
          problems.add(
              where + ": USE_GPU=" + gpu + " but GPU executors " + (gpuConf ? "set" : "not set"));
        }
      }
      problems.addAll(chain(script, jobs, "report"));
    }
    assertNone(problems);
  }

  /** A spark-submit command line, parsed with spark-submit's own option table. */
  private record Submission(
      String where,
      Map<String, List<String>> options,
      Map<String, String> conf,
      String jar,
      InfuseCommand command,
      List<String> problems) {

    static Submission parse(String where, List<String> args, List<String> problems) {
      SparkSubmitOptions known = SparkSubmitOptions.get();
      Map<String, List<String>> options = new LinkedHashMap<>();
      Map<String, String> conf = new LinkedHashMap<>();
      int i = 0;
      for (; i < args.size() && args.get(i).startsWith("-"); i++) {
        String option = args.get(i);
        String value = null;
        int eq = option.indexOf('=');
        if (eq > 0 && known.withValue.contains(option.substring(0, eq))) {
          value = option.substring(eq + 1);
          option = option.substring(0, eq);
        } else if (known.withValue.contains(option)) {
          if (i + 1 >= args.size()) {
            problems.add(where + ": " + option + ": expected a value");
            break;
          }
          value = args.get(++i);
        } else if (!known.switches.contains(option)) {
          problems.add(where + ": " + option + ": not a spark-submit option");
          continue;
        }
        options.computeIfAbsent(option, k -> new ArrayList<>()).add(value);
        if (option.equals("--conf") || option.equals("-c")) {
          int at = value.indexOf('=');
          if (at <= 0) {
            problems.add(where + ": --conf " + value + ": expected key=value");
          } else {
            conf.put(value.substring(0, at), value.substring(at + 1));
          }
        }
      }
      // spark-submit's shortcuts are Spark settings like any other.
      Map<String, String> shortcuts =
          Map.of(
              "--driver-memory", "spark.driver.memory",
              "--executor-memory", "spark.executor.memory",
              "--executor-cores", "spark.executor.cores",
              "--num-executors", "spark.executor.instances");
      shortcuts.forEach(
          (option, key) -> {
            if (options.containsKey(option)) {
              conf.put(key, options.get(option).get(0));
            }
          });
      String jar = i < args.size() ? args.get(i) : "";
      List<String> infuseArgs = i + 1 < args.size() ? args.subList(i + 1, args.size()) : List.of();
      InfuseCommand command = InfuseCommand.check(where, infuseArgs, problems);
      return new Submission(where, options, conf, jar, command, problems);
    }

    String option(String name) {
      List<String> values = options.get(name);
      return values == null ? "" : values.get(values.size() - 1);
    }

    String job() {
      return command == null ? "?" : command.job;
    }

    List<String> check(Platform platform) {
      List<String> found = new ArrayList<>();
      found.addAll(mainClass(where + ": --class", option("--class")));
      found.addAll(infuseJar(where + ": the application jar", jar));
      List<String> jars = new ArrayList<>();
      for (String value : options.getOrDefault("--jars", List.of())) {
        jars.addAll(List.of(value.split(",")));
      }
      boolean gpu = conf.containsKey("spark.executor.resource.gpu.amount");
      found.addAll(libtorch(where + ": --jars", jars, gpu));
      found.addAll(sparkConf(where, conf, platform));
      String master = option("--master");
      String expectedMaster = platform == Platform.KUBERNETES ? "k8s://https://" : "yarn";
      if (!master.startsWith(expectedMaster)) {
        found.add(where + ": --master: got '" + master + "', expected " + expectedMaster + "...");
      }
      boolean cluster = option("--deploy-mode").equals("cluster");
      if (!cluster) {
        found.add(
            where + ": --deploy-mode: got '" + option("--deploy-mode") + "', expected cluster");
      }
      if (platform == Platform.EMR && !jar.startsWith("s3://")) {
        found.add(where + ": the application jar: got '" + jar + "', expected an s3:// path");
      }
      if (platform == Platform.KUBERNETES && !jar.startsWith("local://")) {
        found.add(
            where + ": the application jar: got '" + jar + "', expected local:// (in the image)");
      }
      if (command == null) {
        return found;
      }
      // In cluster mode the driver runs in a container: conf/... must travel to it, as the
      // archive YARN unpacks as ./conf, or in the image named by -Dinfuse.home.
      boolean shipsConf =
          options.getOrDefault("--archives", List.of()).stream()
                  .flatMap(a -> Stream.of(a.split(",")))
                  .anyMatch(a -> a.endsWith("#conf"))
              || conf.getOrDefault("spark.driver.extraJavaOptions", "").contains("-Dinfuse.home=/");
      for (String arg : command.args) {
        if (arg.startsWith("conf/") && !shipsConf) {
          found.add(
              where
                  + ": "
                  + arg
                  + " is read by the driver, which in cluster mode does not see the repository;"
                  + " ship conf/ with --archives ...#conf or set -Dinfuse.home in the image");
        }
      }
      for (String config : command.configFiles) {
        if (config.startsWith("/")) {
          found.add(
              where + ": --config " + config + ": a local path the cluster's driver does not have");
        }
      }
      String warehouse = command.config.warehouse();
      String expected =
          switch (platform) {
            case EMR -> "s3://";
            case KUBERNETES -> "s3a://";
            default -> "";
          };
      if (!warehouse.startsWith(expected)) {
        found.add(where + ": warehouse: got '" + warehouse + "', expected " + expected + "...");
      }
      String scheme =
          warehouse.contains("://") ? warehouse.substring(0, warehouse.indexOf(':')) : "";
      if ((scheme.equals("s3") || scheme.equals("s3a"))
          && !conf.containsKey("spark.delta.logStore." + scheme + ".impl")) {
        found.add(
            where
                + ": warehouse "
                + warehouse
                + ": expected spark.delta.logStore."
                + scheme
                + ".impl (Delta's S3 log store) to be set");
      }
      for (String key : List.of("spark.sql.extensions", "spark.sql.catalog.spark_catalog")) {
        if (!conf.containsKey(key)) {
          found.add(where + ": expected --conf " + key + " (Delta)");
        }
      }
      return found;
    }
  }

  /** spark-submit's options, from its own parser: those that take a value, and the switches. */
  private record SparkSubmitOptions(Set<String> withValue, Set<String> switches) {
    private static SparkSubmitOptions instance;

    static synchronized SparkSubmitOptions get() {
      if (instance == null) {
        try {
          Class<?> parser = Class.forName("org.apache.spark.launcher.SparkSubmitOptionParser");
          Constructor<?> constructor = parser.getDeclaredConstructor();
          constructor.setAccessible(true);
          Object options = constructor.newInstance();
          instance =
              new SparkSubmitOptions(
                  names(parser, options, "opts"), names(parser, options, "switches"));
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("cannot read spark-submit's options", e);
        }
      }
      return instance;
    }

    private static Set<String> names(Class<?> parser, Object options, String field)
        throws ReflectiveOperationException {
      Field table = parser.getDeclaredField(field);
      table.setAccessible(true);
      Set<String> names = new HashSet<>();
      for (String[] aliases : (String[][]) table.get(options)) {
        names.addAll(List.of(aliases));
      }
      return names;
    }
  }

  /** An Infuse command line: parsed by the CLI and its config loaded, as the job would. */
  private static final class InfuseCommand {
    final String job;
    final List<String> args;
    final List<String> configFiles;
    final InfuseConfig config;

    private InfuseCommand(
        String job, List<String> args, List<String> configFiles, InfuseConfig config) {
      this.job = job;
      this.args = args;
      this.configFiles = configFiles;
      this.config = config;
    }

    /**
     * Null, with the problems added, when the command line does not parse or load. A command line
     * is checked once: the scripts submit the same jobs with and without GPUs.
     */
    static InfuseCommand check(String where, List<String> args, List<String> problems) {
      if (args.isEmpty()) {
        problems.add(where + ": no Infuse job after the jar");
        return null;
      }
      Checked checked = CHECKED.computeIfAbsent(List.copyOf(args), InfuseCommand::check);
      checked.problems().forEach(p -> problems.add(where + ": " + p));
      return checked.command();
    }

    private record Checked(InfuseCommand command, List<String> problems) {}

    private static final Map<List<String>, Checked> CHECKED = new ConcurrentHashMap<>();

    private static Checked check(List<String> args) {
      List<String> problems = new ArrayList<>();
      String shown = "infuse " + String.join(" ", args);
      // --config files are where the driver sees them; the repository's conf/ is what ships.
      List<String> configFiles = new ArrayList<>();
      List<String> local = new ArrayList<>(args);
      boolean missing = false;
      for (int i = 0; i + 1 < local.size(); i++) {
        if (local.get(i).equals("--config")) {
          String config = local.get(i + 1);
          configFiles.add(config);
          Path file = inRepository(config);
          if (file == null || !Files.isRegularFile(file)) {
            problems.add(
                shown + ": --config " + config + ": no such file under the repository's conf/");
            missing = true;
          } else {
            local.set(i + 1, file.toString());
          }
        }
      }
      CommandLine line = Main.commandLine();
      CommandLine.ParseResult parsed;
      try {
        parsed = line.parseArgs(local.toArray(String[]::new));
      } catch (CommandLine.ParameterException e) {
        problems.add(shown + ": " + e.getMessage());
        return new Checked(null, problems);
      }
      if (!parsed.hasSubcommand()) {
        problems.add(shown + ": expected a job");
        return new Checked(null, problems);
      }
      if (missing) {
        return new Checked(null, problems);
      }
      CommandLine command = parsed.subcommand().commandSpec().commandLine();
      InfuseConfig config;
      try {
        config = ParsedCommands.loader(command).load();
      } catch (ConfigException e) {
        problems.add(shown + ": " + String.join("; ", e.problems()));
        return new Checked(null, problems);
      } catch (IllegalArgumentException e) {
        problems.add(shown + ": " + e.getMessage());
        return new Checked(null, problems);
      }
      String job = command.getCommandName();
      try {
        if (job.equals("train")) {
          TrainJob.modelDir(config.warehouse(), config.section(TrainConfig.class).modelDir());
        }
        String answerModel = config.section(AnswerConfig.class).modelDir();
        if (job.equals("answer") && answerModel != null) {
          TrainJob.modelDir(config.warehouse(), answerModel);
        }
      } catch (ConfigException e) {
        problems.add(shown + ": " + String.join("; ", e.problems()));
      }
      if (job.equals("build-shards")) {
        String mixture = config.section(ShardsConfig.class).mixture();
        Path file = inRepository(mixture);
        if (file == null || !Files.isRegularFile(file)) {
          problems.add(shown + ": shards.mixture " + mixture + ": no such file under conf/");
        } else {
          MixtureFiles.problems(file).forEach(p -> problems.add(shown + ": " + mixture + ": " + p));
        }
      }
      return new Checked(new InfuseCommand(job, List.copyOf(args), configFiles, config), problems);
    }
  }

  /**
   * Fails with every problem, once: a setting every submission shares is reported with the numbers
   * of the submissions it is wrong in, not once per submission.
   */
  private static void assertNone(List<String> problems) {
    Pattern numbered = Pattern.compile("^(.*) #(\\d+)(: .*)$", Pattern.DOTALL);
    Map<String, List<String>> grouped = new LinkedHashMap<>();
    for (String problem : problems) {
      Matcher matcher = numbered.matcher(problem);
      if (matcher.matches()) {
        grouped
            .computeIfAbsent(matcher.group(1) + "\0" + matcher.group(3), k -> new ArrayList<>())
            .add("#" + matcher.group(2));
      } else {
        grouped.put(problem, List.of());
      }
    }
    List<String> lines = new ArrayList<>();
    grouped.forEach(
        (key, numbers) -> {
          String[] parts = key.split("\0", 2);
          lines.add(
              numbers.isEmpty() ? key : parts[0] + " " + String.join(", ", numbers) + parts[1]);
        });
    assertThat(lines).as(String.join("\n", lines)).isEmpty();
  }

  /** The Spark settings: each key a Spark key, each value of the shape its key needs. */
  private static List<String> sparkConf(String where, Map<String, String> conf, Platform platform) {
    List<String> found = new ArrayList<>();
    for (Map.Entry<String, String> entry : conf.entrySet()) {
      String key = entry.getKey();
      String value = entry.getValue();
      String at = where + ": " + key + "=" + value;
      if (!key.startsWith("spark.")) {
        found.add(at + ": expected a spark.* key");
        continue;
      }
      if (value.isBlank()) {
        found.add(at + ": expected a value");
        continue;
      }
      try {
        if (key.endsWith(".memory") || key.endsWith(".memoryOverhead")) {
          JavaUtils.byteStringAsBytes(value);
        } else if (key.equals("spark.executor.cores") || key.equals("spark.executor.instances")) {
          positive(Long.parseLong(value));
        } else if (key.matches("spark\\.(executor|driver)\\.resource\\.gpu\\.amount")) {
          positive(Long.parseLong(value));
        } else if (key.equals("spark.task.resource.gpu.amount")) {
          double amount = Double.parseDouble(value);
          positive(amount);
          new TaskResourceRequest("gpu", amount);
        } else if (key.equals("spark.sql.extensions")
            || key.startsWith("spark.sql.catalog.")
            || key.matches("spark\\.delta\\.logStore\\.[a-z0-9]+\\.impl")) {
          Class.forName(value);
        } else if (key.endsWith(".discoveryScript")) {
          Path script = inRepository(value);
          if (script == null || !Files.isExecutable(script)) {
            found.add(
                at + ": expected the path of conf/gpu/getGpusResources.sh where it is installed");
          }
        } else if (key.endsWith(".resource.gpu.vendor") && !value.equals("nvidia.com")) {
          found.add(at + ": expected nvidia.com (the NVIDIA device plugin's resource)");
        }
      } catch (ClassNotFoundException e) {
        found.add(at + ": no such class on the classpath");
      } catch (RuntimeException | AssertionError e) {
        found.add(at + ": " + e.getMessage());
      }
    }
    for (String side : List.of("driver", "executor")) {
      String key = "spark." + side + ".extraJavaOptions";
      if (!conf.getOrDefault(key, "").contains("-Dai.djl.offline=true")) {
        found.add(where + ": " + key + ": expected -Dai.djl.offline=true (Infuse never downloads)");
      }
      String amount = conf.get("spark." + side + ".resource.gpu.amount");
      if (amount != null && platform != Platform.DATABRICKS) {
        if (!conf.containsKey("spark." + side + ".resource.gpu.discoveryScript")) {
          found.add(
              where
                  + ": spark."
                  + side
                  + ".resource.gpu.amount="
                  + amount
                  + " without a discoveryScript");
        }
        if (platform == Platform.KUBERNETES
            && !conf.containsKey("spark." + side + ".resource.gpu.vendor")) {
          found.add(
              where
                  + ": spark."
                  + side
                  + ".resource.gpu.amount="
                  + amount
                  + " without a vendor (Kubernetes)");
        }
      }
    }
    String task = conf.get("spark.task.resource.gpu.amount");
    String executor = conf.get("spark.executor.resource.gpu.amount");
    String cores = conf.get("spark.executor.cores");
    if (task != null && executor != null && cores != null) {
      try {
        double share = Double.parseDouble(task) * Long.parseLong(cores);
        if (Math.abs(share - Long.parseLong(executor)) > 1e-9) {
          found.add(
              where
                  + ": spark.task.resource.gpu.amount="
                  + task
                  + " x "
                  + cores
                  + " cores != spark.executor.resource.gpu.amount="
                  + executor
                  + ": cores or GPUs would sit idle");
        }
      } catch (NumberFormatException e) {
        // reported above
      }
    }
    if (platform != Platform.DATABRICKS && executor == null && task != null) {
      found.add(where + ": spark.task.resource.gpu.amount=" + task + " without executor GPUs");
    }
    return found;
  }

  private static void positive(double value) {
    if (value <= 0) {
      throw new IllegalArgumentException("expected a positive number");
    }
  }

  /** The main class: loadable, with {@code public static void main(String[])}. */
  private static List<String> mainClass(String where, String name) {
    try {
      Method main = Class.forName(name).getMethod("main", String[].class);
      if (!Modifier.isStatic(main.getModifiers())) {
        return List.of(where + ": " + name + ".main is not static");
      }
      return List.of();
    } catch (ClassNotFoundException e) {
      return List.of(where + ": got '" + name + "', no such class");
    } catch (NoSuchMethodException e) {
      return List.of(where + ": " + name + " has no main(String[])");
    }
  }

  /** The application jar: the shaded jar this build makes. */
  private static List<String> infuseJar(String where, String jar) {
    String expected = "infuse-jobs-" + pomProperty("<version>") + "-all.jar";
    String name = jar.substring(jar.lastIndexOf('/') + 1);
    return name.equals(expected)
        ? List.of()
        : List.of(where + ": got '" + jar + "', expected .../" + expected);
  }

  /** Exactly one libtorch jar, of the build's version, CUDA on GPU machines and CPU elsewhere. */
  private static List<String> libtorch(String where, List<String> jars, boolean gpu) {
    List<String> found = new ArrayList<>();
    List<Matcher> libtorch =
        jars.stream().map(j -> LIBTORCH_JAR.matcher(j)).filter(Matcher::find).toList();
    if (libtorch.size() != 1) {
      found.add(
          where
              + ": got "
              + jars
              + ", expected one pytorch-native-*-linux-x86_64.jar (docs/DJL.md)");
      return found;
    }
    String flavour = libtorch.get(0).group(1);
    String version = libtorch.get(0).group(2);
    String expectedFlavour = gpu ? CUDA_FLAVOUR : "cpu";
    if (!flavour.equals(expectedFlavour)) {
      found.add(
          where
              + ": libtorch flavour "
              + flavour
              + ", expected "
              + expectedFlavour
              + (gpu ? " on GPUs" : " without GPUs"));
    }
    String expectedVersion = pomProperty("<pytorch.version>");
    if (!version.equals(expectedVersion)) {
      found.add(
          where
              + ": libtorch "
              + version
              + ", expected "
              + expectedVersion
              + " (pytorch.version in pom.xml)");
    }
    return found;
  }

  /** The chain runs from ingest to {@code last}. */
  private static List<String> chain(Path file, List<String> jobs, String last) {
    if (jobs.isEmpty()
        || !jobs.get(0).equals("ingest")
        || !jobs.get(jobs.size() - 1).equals(last)) {
      return List.of(file + ": jobs " + jobs + ", expected a chain from ingest to " + last);
    }
    return List.of();
  }

  /** Every conf/... path a file names is in the repository. */
  private static List<String> confReferences(Path file) throws IOException {
    List<String> found = new ArrayList<>();
    Matcher matcher = CONF_REFERENCE.matcher(Files.readString(file));
    while (matcher.find()) {
      if (!Files.exists(REPO.resolve(matcher.group()))) {
        found.add(file + ": " + matcher.group() + ": no such file or directory in the repository");
      }
    }
    return found;
  }

  /** The repository file a shipped path stands for: the part from its last conf/ on. */
  private static Path inRepository(String path) {
    if (path.startsWith("conf/")) {
      return REPO.resolve(path);
    }
    int at = path.lastIndexOf("/conf/");
    return at < 0 ? null : REPO.resolve(path.substring(at + 1));
  }

  private static String pomProperty(String tag) {
    try {
      String pom = Files.readString(REPO.resolve("pom.xml"));
      int start = pom.indexOf(tag) + tag.length();
      return pom.substring(start, pom.indexOf('<', start)).strip();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String text(JsonNode node, String field) {
    return node.path(field).asText("");
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(v -> values.add(v.asText()));
    return values;
  }

  private record Result(int code, String output) {}

  private static Result run(Path dir, List<String> command, Map<String, String> env)
      throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    builder.environment().putAll(env);
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(command + " did not finish");
    }
    return new Result(process.exitValue(), output);
  }

  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("conf"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("no conf/ above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }
}
