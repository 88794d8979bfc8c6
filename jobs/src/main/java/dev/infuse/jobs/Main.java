package dev.infuse.jobs;

import dev.infuse.jobs.cli.JobCatalog;
import dev.infuse.jobs.run.BuildInfo;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The entry point for {@code bin/infuse} and {@code spark-submit --class dev.infuse.jobs.Main <jar>
 * <job> …}. It only parses arguments and dispatches; the commands are {@link JobCatalog#COMMANDS},
 * each job lives in its own package.
 */
@Command(
    name = "infuse",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = {
      "Apache Spark batch jobs for LLM post-training data and evaluation.",
      "Every job takes --config FILE, --set key=value, --warehouse DIR|URI and --help."
    },
    footer = {
      "",
      "Run 'infuse JOB --help' for a job's options. Docs: README.md, docs/ARCHITECTURE.md.",
      // bench runs Maven, so bin/infuse handles it before any JVM starts; listed here so users
      // find it where they look for commands.
      "bin/infuse bench [--only REGEX] [--out DIR] [--scale] runs every benchmark and prints one"
          + " table.",
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

  /** The command line: every command of the catalog, with its bound options described. */
  static CommandLine commandLine() {
    CommandLine commandLine = new CommandLine(new Main());
    for (Class<?> command : JobCatalog.COMMANDS) {
      commandLine.addSubcommand(command);
    }
    commandLine.addSubcommand(new CommandLine.HelpCommand());
    // Wide enough that every command's one-line summary fits beside build-behavior-tasks; set
    // after the subcommands are added, so that it applies to them too.
    commandLine.setUsageHelpWidth(100);
    JobCatalog.describeOptions(commandLine);
    return commandLine;
  }

  /** Parses and runs; returns the exit code. Writers are parameters so tests can capture output. */
  public static int execute(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine commandLine = commandLine();
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
