package dev.infuse.jobs.cli;

import dev.infuse.jobs.config.ConfigLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** Options every command takes: the config layers, the warehouse and the master. */
public final class CommonOptions {
  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "YAML config file; repeat to layer several, later files win.")
  List<Path> configFiles = new ArrayList<>();

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description =
          "Override one config key, e.g. --set chunk.max_tokens=512. Repeatable; applied after"
              + " --config.")
  List<String> overrides = new ArrayList<>();

  @Option(
      names = "--warehouse",
      paramLabel = "DIR|URI|CATALOG.SCHEMA",
      description =
          "Where the Delta tables live: a directory, any Hadoop URI, or a metastore schema"
              + " (catalog.schema) whose tables are read and written by name.")
  @ConfigKey("warehouse")
  String warehouse;

  @Option(
      names = "--master",
      paramLabel = "MASTER",
      description = "Spark master for local runs; ignored under spark-submit.")
  @ConfigKey("spark.master")
  String master;

  /**
   * The built-in defaults, then the config files, then {@code --set}, then the flags of {@code
   * command} ({@link ConfigKey}), which win. Each call gives a fresh loader.
   */
  ConfigLoader loader(CommandSpec command) {
    ConfigLoader loader = JobCatalog.configLoader();
    configFiles.forEach(loader::file);
    overrides.forEach(loader::set);
    ConfigOptions.bind(command, loader);
    return loader;
  }
}
