package dev.infuse.jobs.run;

import dev.infuse.jobs.config.ConfigLoader;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.Consumer;
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
  private int last = Integer.MAX_VALUE;

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

  public SparkSession spark() {
    return spark;
  }

  public PrintWriter out() {
    return out;
  }

  /** A fresh loader of the chain's base config, for a caller that plans steps from it. */
  public ConfigLoader baseConfig() {
    return base.get();
  }

  /**
   * Ends the chain after step {@code step}: whatever comes next throws {@link Stopped} instead of
   * running, so a caller can run the first steps of a long chain and keep their tables.
   */
  public RecordedSteps stopAfter(int step) {
    this.last = step;
    return this;
  }

  /** Thrown in place of the step after the one {@link #stopAfter} named. */
  public static final class Stopped extends RuntimeException {
    private final int step;

    Stopped(int step) {
      super("stopped after step " + step);
      this.step = step;
    }

    /** The last step that ran. */
    public int step() {
      return step;
    }
  }

  /**
   * Prints the next step's heading, for a step that is not a recorded job.
   *
   * @throws Stopped when the chain was told to stop before this step
   */
  public void heading(String title) {
    if (number >= last) {
      throw new Stopped(number);
    }
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
  public String run(String title, String name, Job job, Consumer<ConfigLoader> overrides) {
    ConfigLoader loader = base.get();
    overrides.accept(loader);
    JobRun run = new JobRun(name, spark, loader.load(), out, err);
    heading(title);
    RunStatus status = RecordedRun.execute(run, job);
    if (status != RunStatus.SUCCEEDED) {
      throw new StepFailedException(name, status);
    }
    return run.runId();
  }

  /**
   * Runs the step just run once more under the same number (a retry is not another step, so the
   * headings never count past the total), e.g. a train step resuming from its last checkpoint.
   *
   * @throws IllegalStateException when no step has run yet
   */
  public String retry(String title, String name, Job job, Consumer<ConfigLoader> overrides) {
    if (number == 0) {
      throw new IllegalStateException("retry before any step: nothing to run again");
    }
    number--;
    return run("retry: " + title, name, job, overrides);
  }

  /** A run with no overrides of its own. */
  public String run(String title, String name, Job job) {
    return run(title, name, job, loader -> {});
  }
}
