package dev.infuse.jobs;

import dev.infuse.jobs.cli.AnswerCommand;
import dev.infuse.jobs.cli.BuildShardsCommand;
import dev.infuse.jobs.cli.ChunkCommand;
import dev.infuse.jobs.cli.EmbedCommand;
import dev.infuse.jobs.cli.EvaluateCommand;
import dev.infuse.jobs.cli.FitScalingCommand;
import dev.infuse.jobs.cli.GenDocsCommand;
import dev.infuse.jobs.cli.GenQaCommand;
import dev.infuse.jobs.cli.IndexCommand;
import dev.infuse.jobs.cli.IngestCommand;
import dev.infuse.jobs.cli.ReportCommand;
import dev.infuse.jobs.cli.RetrieveCommand;
import dev.infuse.jobs.cli.ScoreCommand;
import dev.infuse.jobs.cli.TrainCommand;
import dev.infuse.jobs.demo.DemoCommand;
import dev.infuse.jobs.sql.SqlCommand;
import dev.infuse.jobs.validate.ValidateCommand;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The entry point for {@code bin/infuse} and {@code spark-submit --class dev.infuse.jobs.Main <jar>
 * <job> …}. It only parses arguments and dispatches; each job lives in its own class.
 */
@Command(
    name = "infuse",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = {
      "Apache Spark batch jobs for LLM post-training data and evaluation.",
      "Every job takes --config FILE, --set key=value, --warehouse DIR|URI and --help."
    },
    subcommands = {
      IngestCommand.class,
      ChunkCommand.class,
      EmbedCommand.class,
      GenQaCommand.class,
      GenDocsCommand.class,
      TrainCommand.class,
      BuildShardsCommand.class,
      IndexCommand.class,
      RetrieveCommand.class,
      AnswerCommand.class,
      ScoreCommand.class,
      FitScalingCommand.class,
      ReportCommand.class,
      EvaluateCommand.class,
      SqlCommand.class,
      ValidateCommand.class,
      DemoCommand.class,
      CommandLine.HelpCommand.class
    },
    footer = {
      "",
      "Run 'infuse JOB --help' for a job's options. Docs: README.md, docs/ARCHITECTURE.md."
    })
public final class Main implements java.util.concurrent.Callable<Integer> {
  @Spec CommandSpec spec;

  /** No job given: show the jobs and fail as a usage error. */
  @Override
  public Integer call() {
    spec.commandLine().getErr().println("error: no job given");
    spec.commandLine().usage(spec.commandLine().getErr());
    return 2;
  }

  /** Parses and runs; returns the exit code. Writers are parameters so tests can capture output. */
  public static int execute(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine commandLine = new CommandLine(new Main());
    commandLine.setOut(out);
    commandLine.setErr(err);
    int code = commandLine.execute(args);
    out.flush();
    err.flush();
    return code;
  }

  public static void main(String[] args) {
    int code = execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true));
    if (code != 0) {
      if (System.getenv("DATABRICKS_RUNTIME_VERSION") != null) {
        // Databricks JAR tasks must not call System.exit; an exception fails the task instead.
        throw new IllegalStateException("infuse exited with code " + code);
      }
      System.exit(code);
    }
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"infuse " + BuildInfo.version() + " (git " + BuildInfo.gitSha() + ")"};
    }
  }
}
