package dev.infuse.jobs.cli;

import dev.infuse.jobs.config.ConfigLoader;
import picocli.CommandLine;

/** For tests outside this package: the config a parsed job command would run with. */
public final class ParsedCommands {
  private ParsedCommands() {}

  /**
   * The layered config of a job's command line after {@code parseArgs}: defaults, its {@code
   * --config} files, {@code --set} and its flags, exactly as the command loads it before it runs.
   *
   * @param command the job's subcommand line, from the parse result
   */
  public static ConfigLoader loader(CommandLine command) {
    Object job = command.getCommand();
    CommonOptions common =
        job instanceof JobCommand j ? j.common : job instanceof EvaluateCommand e ? e.common : null;
    if (common == null) {
      throw new IllegalArgumentException(
          command.getCommandName() + " is not a job that loads a config");
    }
    return common.loader(command.getCommandSpec());
  }
}
