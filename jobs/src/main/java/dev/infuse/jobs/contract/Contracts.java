package dev.infuse.jobs.contract;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Loads table contracts. At run time they come from the jar ({@code data-contracts/} is packaged as
 * a resource), so a {@code spark-submit} needs nothing beside the jar; {@code validate} reads the
 * repository's files directly.
 */
public final class Contracts {
  /** The tables this build knows, in the order {@code validate} and the docs list them. */
  public static final List<String> TABLES =
      List.of(
          "documents",
          "questions",
          "chunks",
          "chunk_embeddings",
          "quarantine",
          "runs",
          "llm_calls",
          "synthetic_qa",
          "synthetic_docs",
          "train_metrics",
          "shard_manifest",
          "shard_dedup_drops",
          "decontamination_hits",
          "retrievals",
          "retrieval_recall",
          "predictions",
          "scores",
          "score_comparisons",
          "scaling_fits",
          "rollouts",
          "rewards",
          "discussion_scores",
          "maporl_updates",
          "behavior_tasks",
          "behavior_predictions",
          "behavior_scores",
          "behavior_tasks_hard");

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  private static final Map<String, Contract> CACHE = new ConcurrentHashMap<>();

  private Contracts() {}

  /** The contract of {@code table}, from the classpath. */
  public static Contract load(String table) {
    return CACHE.computeIfAbsent(table, Contracts::loadResource);
  }

  /** A contract file, for {@code validate}; fails with the file name when it does not parse. */
  public static Contract parse(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return JSON.readValue(in, Contract.class);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          file + ": " + e.getMessage().lines().findFirst().orElse(""), e);
    }
  }

  private static Contract loadResource(String table) {
    String resource = "data-contracts/" + table + ".json";
    try (InputStream in = Contracts.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException(
            "no contract for table '"
                + table
                + "': "
                + resource
                + " is not on the classpath; known tables: "
                + TABLES);
      }
      Contract contract = JSON.readValue(in, Contract.class);
      List<String> problems = contract.problems();
      if (!problems.isEmpty()) {
        throw new IllegalStateException(
            "contract " + resource + " is invalid: " + String.join("; ", problems));
      }
      return contract;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource, e);
    }
  }
}
