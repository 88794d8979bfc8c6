package dev.infuse.jobs.validate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.shards.MixtureFiles;
import dev.infuse.udfs.behavior.tasks.Taxonomy;
import dev.infuse.udfs.common.Registry;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Loads every config under {@code conf/}, every prompt under {@code conf/prompts/}, every mixture
 * under {@code conf/mixtures/}, every behaviour taxonomy under {@code conf/behavior/} and every
 * contract under {@code data-contracts/}, and reports every error it finds, not just the first.
 * Needs no Spark session.
 */
public final class RepositoryCheck {
  private final ObjectMapper promptYaml =
      new ObjectMapper(new YAMLFactory()).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final Supplier<ConfigLoader> defaults;

  /**
   * @param defaults a fresh loader of the built-in defaults, to layer each config file over
   */
  public RepositoryCheck(Supplier<ConfigLoader> defaults) {
    this.defaults = defaults;
  }

  /**
   * Checks every file under {@code conf} and {@code contracts}, printing one line per file and one
   * per problem, then a total.
   *
   * @return every problem, each prefixed with its file; empty when all are valid
   */
  public List<String> run(Path conf, Path contracts, PrintWriter out) {
    List<String> errors = new ArrayList<>();
    int files = 0;
    Path prompts = conf.resolve("prompts");
    Path mixtures = conf.resolve("mixtures");
    Path taxonomies = conf.resolve("behavior");
    Registry<Path> promptIds = new Registry<>("prompt");
    for (Path file : list(conf, ".yaml", ".yml")) {
      files++;
      List<String> problems =
          file.startsWith(prompts)
              ? checkPrompt(file, promptIds)
              : file.startsWith(mixtures)
                  ? MixtureFiles.problems(file)
                  : file.startsWith(taxonomies) ? checkTaxonomy(file) : checkConfig(file);
      report(out, file, problems, errors);
    }
    for (Path file : list(contracts, ".json")) {
      files++;
      report(out, file, checkContract(file), errors);
    }
    out.printf("%d file(s) checked, %d error(s)%n", files, errors.size());
    out.flush();
    return errors;
  }

  /** A behaviour taxonomy: its categories' types, sources and perturbations must be known. */
  private static List<String> checkTaxonomy(Path file) {
    try {
      Taxonomy.load(file);
      return List.of();
    } catch (RuntimeException e) {
      return List.of(e.getMessage());
    }
  }

  private List<String> checkConfig(Path file) {
    try {
      defaults.get().file(file).load();
      return List.of();
    } catch (ConfigException e) {
      return e.problems();
    }
  }

  private List<String> checkPrompt(Path file, Registry<Path> ids) {
    try {
      PromptTemplate prompt = promptYaml.readValue(file.toFile(), PromptTemplate.class);
      List<String> problems = new ArrayList<>(prompt.problems());
      if (prompt.id() != null) {
        String key = prompt.id() + "@v" + prompt.version();
        if (ids.contains(key)) {
          problems.add(
              "id: prompt "
                  + key
                  + " is also defined in "
                  + ids.get(key)
                  + ", expected unique id and version");
        } else {
          ids.register(key, file);
        }
      }
      return problems;
    } catch (JsonProcessingException e) {
      return List.of(
          e.getOriginalMessage()
              + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> checkContract(Path file) {
    try {
      Contract contract = Contracts.parse(file);
      List<String> problems = new ArrayList<>(contract.problems());
      String expectedName = file.getFileName().toString().replaceFirst("\\.json$", "");
      if (contract.table() != null && !contract.table().equals(expectedName)) {
        problems.add(
            "table: got " + contract.table() + ", expected " + expectedName + " (the file name)");
      }
      return problems;
    } catch (IllegalArgumentException e) {
      return List.of(e.getMessage());
    }
  }

  private static void report(
      PrintWriter out, Path file, List<String> problems, List<String> errors) {
    if (problems.isEmpty()) {
      out.println("ok     " + file);
      return;
    }
    out.println("ERROR  " + file);
    for (String problem : problems) {
      out.println("         " + problem);
      errors.add(file + ": " + problem);
    }
  }

  private static List<Path> list(Path dir, String... suffixes) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile)
          .filter(p -> Stream.of(suffixes).anyMatch(s -> p.getFileName().toString().endsWith(s)))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
  }
}
