package dev.infuse.jobs.cli;

import dev.infuse.jobs.config.InfuseHome;
import dev.infuse.jobs.validate.RepositoryCheck;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "validate",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Check every config, prompt, mixture and data contract.",
    description = {"Reports all errors, not just the first; exits 1 if any file is invalid."})
public final class ValidateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--conf-dir",
      paramLabel = "DIR",
      description = "Config directory (default: <infuse home>/conf).")
  Path confDir;

  @Option(
      names = "--contracts-dir",
      paramLabel = "DIR",
      description = "Contracts directory (default: <infuse home>/data-contracts).")
  Path contractsDir;

  @Override
  public Integer call() {
    Path conf = confDir != null ? confDir : InfuseHome.resolve("conf");
    Path contracts = contractsDir != null ? contractsDir : InfuseHome.resolve("data-contracts");
    boolean valid =
        new RepositoryCheck(JobCatalog::configLoader)
            .run(conf, contracts, spec.commandLine().getOut())
            .isEmpty();
    return valid ? ExitCodes.OK : ExitCodes.FAILED;
  }
}
