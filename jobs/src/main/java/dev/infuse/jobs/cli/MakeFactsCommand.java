package dev.infuse.jobs.cli;

import dev.infuse.udfs.facts.FactsCorpus;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "make-facts",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Write a synthetic-facts corpus as QuALITY JSON Lines.",
    description = {
      "Writes DIR/"
          + FactsCorpus.FILE_NAME
          + ": N fictional people with six attributes (birth "
          + "date, birth city, university, major, employer, employer city), a biography each in "
          + "phrasings chosen by seed, and one 4-option question per attribute with distractors of "
          + "the same attribute. The first half of the people are subset trained (their QA may be "
          + "trained on), the rest held_out. Deterministic in (people, seed); no Spark. Read it "
          + "with `ingest --format quality`; `facts-experiment` runs the experiment on it "
          + "(docs/EXPERIMENTS.md)."
    })
public final class MakeFactsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      required = true,
      description = "Directory to write " + FactsCorpus.FILE_NAME + " into (created if missing).")
  Path out;

  @Option(
      names = "--people",
      paramLabel = "N",
      defaultValue = "200",
      description = "How many people, 2 to 1024 (default: 200).")
  int people;

  @Option(
      names = "--seed",
      paramLabel = "S",
      defaultValue = "0",
      description = "Seed of every draw: names, values, phrasings, distractors (default: 0).")
  long seed;

  @Override
  public Integer call() {
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (people < 2 || people > FactsCorpus.MAX_PEOPLE) {
      err.println(
          "error: --people: got "
              + people
              + ", expected an integer in 2.."
              + FactsCorpus.MAX_PEOPLE
              + " (each person takes a distinct name)");
      err.flush();
      return ExitCodes.USAGE;
    }
    if (Files.exists(out) && !Files.isDirectory(out)) {
      err.println("error: --out: got " + out + ", which is a file; expected a directory");
      err.flush();
      return ExitCodes.USAGE;
    }
    FactsCorpus corpus = FactsCorpus.generate(people, seed);
    Path file = out.resolve(FactsCorpus.FILE_NAME);
    try {
      Files.createDirectories(out);
      Files.write(file, corpus.jsonLines(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      err.println("error: --out: cannot write " + file + ": " + e.getMessage());
      err.flush();
      return ExitCodes.FAILED;
    }
    long trained = corpus.people().stream().filter(FactsCorpus.Person::trained).count();
    stdout.printf(
        Locale.ROOT,
        "make-facts: %d people (%d trained, %d held_out), %d questions, seed %d -> %s%n",
        people,
        trained,
        people - trained,
        corpus.people().stream().mapToInt(p -> p.questions().size()).sum(),
        seed,
        file);
    stdout.flush();
    return ExitCodes.OK;
  }
}
