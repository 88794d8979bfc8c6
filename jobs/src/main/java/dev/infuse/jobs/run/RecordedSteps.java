package dev.infuse.jobs.run;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.spark.ProgressReporter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
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

  /** One step of a chain: its heading, the recorded job's name, the job, and its overrides. */
  public record Step(String title, String name, Job job, Consumer<ConfigLoader> overrides) {}

  /**
   * Several recorded runs computed in one pass: gets one run per step, in order, and returns each
   * one's counts in the same order. Whatever it throws fails every run.
   */
  @FunctionalInterface
  public interface Together {
    List<RunCounts> run(List<JobRun> runs);
  }

  /**
   * Runs {@code steps} as one pass of {@code together}, each still its own recorded run under its
   * own heading and config, and returns their run ids in order. The runs' printouts are held until
   * the pass ends, then printed under their headings. A single step, or steps that would run past
   * {@link #stopAfter}, run one by one through their own jobs instead.
   *
   * @throws StepFailedException when the pass fails: every run has been recorded as failed
   */
  public List<String> runTogether(List<Step> steps, Together together) {
    List<String> ids = new ArrayList<>();
    if (steps.size() < 2 || number + steps.size() > last) {
      for (Step step : steps) {
        ids.add(run(step.title(), step.name(), step.job(), step.overrides()));
      }
      return ids;
    }
    List<JobRun> runs = new ArrayList<>();
    List<StringWriter> printouts = new ArrayList<>();
    for (Step step : steps) {
      ConfigLoader loader = base.get();
      step.overrides().accept(loader);
      StringWriter printout = new StringWriter();
      printouts.add(printout);
      runs.add(new JobRun(step.name(), spark, loader.load(), new PrintWriter(printout), err));
    }
    List<RunCounts> counts;
    RuntimeException failure = null;
    try (AutoCloseable progress =
        ProgressReporter.start(
            spark.sparkContext(),
            steps.get(0).name() + " x" + steps.size(),
            runs.get(0).config().run().progressIntervalSeconds(),
            err)) {
      counts = together.run(runs);
      if (counts.size() != runs.size()) {
        throw new IllegalStateException(
            "together: got " + counts.size() + " counts for " + runs.size() + " runs");
      }
    } catch (RuntimeException e) {
      failure = e;
      counts = null;
    } catch (Exception e) {
      // Only the progress reporter's close declares a checked exception.
      failure = new IllegalStateException(e);
      counts = null;
    }
    for (int i = 0; i < steps.size(); i++) {
      heading(steps.get(i).title());
      RuntimeException thrown = failure;
      RunCounts done = counts == null ? null : counts.get(i);
      // Recorded as a lone run would be: succeeded with its counts, or failed with the pass's
      // error.
      RunStatus status =
          RecordedRun.execute(
              runs.get(i),
              run -> {
                if (thrown != null) {
                  throw thrown;
                }
                return done;
              });
      out.print(printouts.get(i));
      out.flush();
      if (status != RunStatus.SUCCEEDED) {
        // The error has been printed once, with this run; the pass's later runs fail with it.
        String error =
            failure instanceof ConfigException || failure instanceof JobFailedException
                ? failure.getMessage()
                : failure != null
                    ? failure.toString()
                    : "not recorded: run " + runs.get(i).runId() + " of the same pass failed";
        for (JobRun later : runs.subList(i + 1, runs.size())) {
          RecordedRun.recordFailure(later, RunCounts.none(), error);
        }
        throw new StepFailedException(steps.get(i).name(), status);
      }
      ids.add(runs.get(i).runId());
    }
    return ids;
  }

  /** A run with no overrides of its own. */
  public String run(String title, String name, Job job) {
    return run(title, name, job, loader -> {});
  }
}
