package dev.infuse.jobs.cli;

import dev.infuse.jobs.config.ConfigLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** Options every command takes. */
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
          "Override one config key, e.g. --set chunk.max_tokens=512. Repeatable; applied after --config.")
  List<String> overrides = new ArrayList<>();

  @Option(
      names = "--warehouse",
      paramLabel = "DIR|URI",
      description =
          "Where the Delta tables live: a directory or any Hadoop URI (default: ./warehouse).")
  String warehouse;

  @Option(
      names = "--master",
      paramLabel = "MASTER",
      description = "Spark master for local runs (default: local[*]); ignored under spark-submit.")
  String master;

  /** Defaults, then config files, then --set, then the dedicated flags. */
  public ConfigLoader loader() {
    ConfigLoader loader = ConfigLoader.withDefaults();
    configFiles.forEach(loader::file);
    overrides.forEach(loader::set);
    if (warehouse != null) {
      loader.setString("warehouse", warehouse);
    }
    if (master != null) {
      loader.setString("spark.master", master);
    }
    return loader;
  }
}
