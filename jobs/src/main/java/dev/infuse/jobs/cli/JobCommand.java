package dev.infuse.jobs.cli;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.run.Job;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RecordedRun;
import dev.infuse.jobs.run.RunStatus;
import dev.infuse.jobs.spark.SparkSessions;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A job's command: its options (each bound to a config key by {@link ConfigKey}) and the job it
 * runs. It binds the config, gets a session, runs the job as a recorded run and exits 0 on success,
 * 1 on failure, 2 on bad usage or config.
 */
public abstract class JobCommand implements Callable<Integer> {
  @Spec protected CommandSpec spec;

  @Mixin protected CommonOptions common;

  private final String name;
  private final Job job;

  /**
   * @param name the job's name in {@code runs}
   * @param job the job's work
   */
  protected JobCommand(String name, Job job) {
    this.name = name;
    this.job = job;
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    InfuseConfig config;
    try {
      config = common.loader(spec).load();
    } catch (ConfigException e) {
      return ExitCodes.invalidConfig(err, e);
    }
    return ExitCodes.of(
        SparkSessions.with(
            "infuse " + name,
            config.spark().master(),
            config.spark().conf(),
            spark -> {
              JobRun run;
              try {
                run = new JobRun(name, spark, config, out, err);
              } catch (ConfigException e) {
                // A warehouse that cannot be opened or reached: no run to record it in.
                ExitCodes.invalidConfig(err, e);
                return RunStatus.INVALID_CONFIG;
              }
              return RecordedRun.execute(run, job);
            }));
  }
}
