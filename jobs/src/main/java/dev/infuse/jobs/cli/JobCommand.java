package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.spark.ProgressReporter;
import dev.infuse.jobs.spark.SparkSessions;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The shape of every job command: bind the config, get a session, run the job, record the run in
 * {@code runs} whatever happens, and map the outcome to an exit code: 0 success, 1 failure, 2 bad
 * usage or config.
 */
public abstract class JobCommand implements Callable<Integer> {
  @Spec protected CommandSpec spec;

  @Mixin protected CommonOptions common;

  /** The job name recorded in {@code runs}. */
  protected abstract String jobName();

  /** Layers the job's own flags over the config; they win over --set. */
  protected void applyFlags(ConfigLoader loader) {}

  /** Runs the job; throw {@link JobFailedException} to fail with counts already known. */
  protected abstract RunCounts execute(JobRun run);

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    InfuseConfig config;
    try {
      ConfigLoader loader = common.loader();
      applyFlags(loader);
      config = loader.load();
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return 2;
    }
    SparkSessions.Session session =
        SparkSessions.getOrCreate(
            "infuse " + jobName(), config.spark().master(), config.spark().conf());
    try {
      return runRecorded(new JobRun(jobName(), session.spark(), config, out, err));
    } finally {
      if (session.created()) {
        session.spark().stop();
      }
    }
  }

  /** Runs the job inside an existing session and records it; used by {@code demo} to chain jobs. */
  public int runRecorded(JobRun run) {
    PrintWriter err = run.err();
    try (AutoCloseable progress =
        ProgressReporter.start(
            run.spark().sparkContext(),
            run.job(),
            run.config().run().progressIntervalSeconds(),
            err)) {
      RunCounts counts = execute(run);
      run.succeed(counts);
      run.out().println("  run_id " + run.runId());
      run.out().flush();
      return 0;
    } catch (JobFailedException e) {
      record(run, e.counts(), e.getMessage());
      err.println("error: " + e.getMessage());
      return 1;
    } catch (ConfigException e) {
      record(run, RunCounts.none(), e.getMessage());
      err.println("error: " + e.getMessage());
      return 2;
    } catch (Exception e) {
      record(run, RunCounts.none(), e.toString());
      err.println("error: " + run.job() + " failed: " + e);
      e.printStackTrace(err);
      return 1;
    } finally {
      err.flush();
    }
  }

  private static void record(JobRun run, RunCounts counts, String error) {
    try {
      run.fail(counts, error);
    } catch (RuntimeException e) {
      run.err().println("warning: could not record the failed run in runs: " + e);
    }
  }
}
