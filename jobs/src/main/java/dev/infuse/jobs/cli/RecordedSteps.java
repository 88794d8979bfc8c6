package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.config.ConfigLoader;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;

/**
 * Runs a chain of jobs in one Spark session, each a normal recorded run in {@code runs}, with a
 * numbered heading ({@code == 3/12 ...}) per step. {@code demo} and {@code evaluate} are such
 * chains.
 *
 * <p>Every step's config is the chain's base config (a fresh loader from {@code base}) with the
 * step's overrides on top, so a step never sees another step's settings.
 */
public final class RecordedSteps {
  private final SparkSession spark;
  private final Supplier<ConfigLoader> base;
  private final PrintWriter out;
  private final PrintWriter err;
  private final int total;
  private int number;

  public RecordedSteps(
      SparkSession spark,
      Supplier<ConfigLoader> base,
      int total,
      PrintWriter out,
      PrintWriter err) {
    this.spark = spark;
    this.base = base;
    this.total = total;
    this.out = out;
    this.err = err;
  }

  /** A step failed: the chain stops with the job's exit code (1 failed, 2 bad config). */
  public static final class StepFailedException extends RuntimeException {
    private final int code;

    StepFailedException(String step, int code) {
      super(step + " failed with exit code " + code);
      this.code = code;
    }

    public int code() {
      return code;
    }
  }

  public SparkSession spark() {
    return spark;
  }

  public PrintWriter out() {
    return out;
  }

  /** Prints the next step's heading, for a step that is not a recorded job. */
  public void heading(String title) {
    out.printf(Locale.ROOT, "== %d/%d %s%n", ++number, total, title);
    out.flush();
  }

  /**
   * Runs {@code job} as the recorded run {@code name} on the base config with {@code overrides}
   * applied, after its heading, and returns its run id.
   *
   * @throws StepFailedException when the job fails; it has been recorded as failed and its error
   *     printed
   * @throws dev.infuse.jobs.config.ConfigException when the step's config is invalid
   */
  public String run(
      String title,
      String name,
      Function<JobRun, RunCounts> job,
      Consumer<ConfigLoader> overrides) {
    ConfigLoader loader = base.get();
    overrides.accept(loader);
    JobRun run = new JobRun(name, spark, loader.load(), out, err);
    heading(title);
    int code =
        new JobCommand() {
          @Override
          protected String jobName() {
            return name;
          }

          @Override
          protected RunCounts execute(JobRun r) {
            return job.apply(r);
          }
        }.runRecorded(run);
    if (code != 0) {
      throw new StepFailedException(name, code);
    }
    return run.runId();
  }

  /** A run with no overrides of its own. */
  public String run(String title, String name, Function<JobRun, RunCounts> job) {
    return run(title, name, job, loader -> {});
  }
}
