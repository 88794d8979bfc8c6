package dev.infuse.jobs.config;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The whole configuration, bound from YAML by {@link ConfigLoader}: the built-in defaults ({@code
 * dev/infuse/jobs/defaults.yaml}, which documents every key), then each {@code --config} file, then
 * each {@code --set key=value}, then the job's own flags. Keys are snake_case; unknown keys are
 * errors.
 *
 * <p>It holds what every job shares ({@link #warehouse}, {@link #run}, {@link #spark}) and composes
 * the jobs' own sections, each a record in its job's package, looked up by type: {@code
 * config.section(AnswerConfig.class)}. It knows none of them by name, so that the jobs depend on
 * the config and never the other way round.
 */
public final class InfuseConfig {
  private final String warehouse;
  private final RunConfig run;
  private final SparkConfig spark;
  private final Map<Class<?>, Object> sections;
  private final Map<String, Object> tree;

  /**
   * @param warehouse where the Delta tables live: a directory or any Hadoop URI
   * @param sections the jobs' sections by YAML name, in catalog order
   */
  InfuseConfig(String warehouse, RunConfig run, SparkConfig spark, Map<String, Object> sections) {
    this.warehouse = warehouse;
    this.run = run;
    this.spark = spark;
    Map<Class<?>, Object> byType = new LinkedHashMap<>();
    Map<String, Object> tree = new LinkedHashMap<>();
    tree.put("warehouse", warehouse);
    tree.put("run", run);
    tree.put("spark", spark);
    sections.forEach(
        (name, section) -> {
          tree.put(name, section);
          if (byType.put(section.getClass(), section) != null) {
            throw new IllegalArgumentException(
                "config section type " + section.getClass().getName() + " is registered twice");
          }
        });
    this.sections = Collections.unmodifiableMap(byType);
    this.tree = Collections.unmodifiableMap(tree);
  }

  /** Where the Delta tables live: a directory or any Hadoop URI. */
  public String warehouse() {
    return warehouse;
  }

  public RunConfig run() {
    return run;
  }

  public SparkConfig spark() {
    return spark;
  }

  /**
   * A job's section.
   *
   * @throws IllegalStateException when no section binds to {@code type}: the job catalog lacks it
   */
  public <T> T section(Class<T> type) {
    Object section = sections.get(type);
    if (section == null) {
      throw new IllegalStateException(
          "no config section binds to "
              + type.getName()
              + "; expected it in the job catalog's sections (cli.JobCatalog)");
    }
    return type.cast(section);
  }

  /**
   * Every section by its YAML name, {@code warehouse}, {@code run} and {@code spark} first: what
   * {@link ConfigJson} serialises, so the recorded config has the shape of the YAML.
   */
  @JsonValue
  public Map<String, Object> sections() {
    return tree;
  }

  /**
   * This config with {@code spark.master} replaced: what a run records when spark-submit or a
   * cluster manager chose the master, so that {@code runs.config_json} says where the run went.
   */
  public InfuseConfig withSparkMaster(String master) {
    if (master.equals(spark.master())) {
      return this;
    }
    Map<String, Object> jobSections = new LinkedHashMap<>(tree);
    jobSections.remove("warehouse");
    jobSections.remove("run");
    jobSections.remove("spark");
    return new InfuseConfig(warehouse, run, new SparkConfig(master, spark.conf()), jobSections);
  }

  @Override
  public String toString() {
    return "InfuseConfig" + tree;
  }
}
