package dev.infuse.udfs.llm;

import dev.infuse.udfs.behavior.score.ExtractiveClinician;
import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.generate.GenerationTask;
import dev.infuse.udfs.maporl.ExtractiveDiscussant;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The model-free backend: it ignores the rendered messages and computes each task from the
 * request's {@code task} map, answering in exactly the format the prompt asks a model for, so the
 * same parsers and jobs run with or without an LLM. Everything it writes is taken from the document
 * (cloze and pattern questions with verbatim answers, reordered or selected sentences), and text
 * outputs say on their first line that they are extractive. Deterministic: the same task and seed
 * give the same output; choice {@code i} uses seed + i, and where a task samples (which sentences
 * to question, dialogue wording) different seeds give different outputs. Stateless, so thread-safe.
 * The one task not taken from a document is MAPoRL's {@code discuss}: {@link ExtractiveDiscussant}
 * answers with a seeded heuristic, then follows the majority, and says it is model-free; the
 * behaviour mode's {@code behave} is answered by {@link ExtractiveClinician}, a rule checker that
 * says the same. The behaviour recipe's model-only kinds ({@code behavior_judge}, {@code
 * behavior_conversation}, {@code behavior_sft_rewrite}) are refused, naming the setting that does
 * without a model.
 */
public final class ExtractiveClient implements LlmClient {

  private final LlmSettings settings;

  public ExtractiveClient(LlmSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  @Override
  public String backend() {
    return LlmBackend.EXTRACTIVE.id();
  }

  /** The settings it was built from; only the model name matters here, and only as a label. */
  public LlmSettings settings() {
    return settings;
  }

  /**
   * Completes at once. A task map it cannot work from (unknown kind, a missing or malformed
   * variable, a document with nothing to extract) fails the future with an {@link LlmCallException}
   * naming the variable: retrying would give the same answer.
   */
  @Override
  public CompletableFuture<ChatResponse> complete(ChatRequest request) {
    if (request.loglikelihood() != null) {
      return CompletableFuture.failedFuture(
          new LlmCallException(
              "extractive: cannot serve a log-likelihood request: the model-free backend has no"
                  + " token probabilities; only the openai backend sends them",
              0,
              0,
              null));
    }
    long started = System.nanoTime();
    try {
      GenerationParams params = request.params();
      Map<String, String> task = request.task();
      int n = params == null ? 1 : Math.max(1, params.n());
      long seed = params == null || params.seed() == null ? 0L : params.seed();
      long inputs = inputHash(task);
      List<String> texts = new ArrayList<>(n);
      String finishReason = "stop";
      int completionTokens = 0;
      for (int i = 0; i < n; i++) {
        String text = run(task, new SplittableRandom(mix(seed + i) ^ inputs));
        int maxTokens = params == null ? 0 : params.maxTokens();
        if (maxTokens > 0 && whitespaceTokens(text) > maxTokens) {
          text = firstTokens(text, maxTokens);
          if (i == 0) {
            finishReason = "length";
          }
        }
        completionTokens += whitespaceTokens(text);
        texts.add(text);
      }
      int promptTokens = 0;
      for (ChatMessage message : request.messages()) {
        promptTokens += whitespaceTokens(message.content());
      }
      long latency = (System.nanoTime() - started) / 1_000_000;
      return CompletableFuture.completedFuture(
          new ChatResponse(texts, finishReason, promptTokens, completionTokens, 1, latency));
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(
          new LlmCallException(
              "extractive backend cannot do task "
                  + request.task().get(GenerationTask.KIND)
                  + ": "
                  + e.getMessage(),
              1,
              0,
              e));
    }
  }

  private static String run(Map<String, String> task, SplittableRandom rng) {
    String kind = task.get(GenerationTask.KIND);
    GenerationTask.variables(kind);
    if (kind.equals(GenerationTask.DISCUSS)) {
      return ExtractiveDiscussant.respond(task, rng);
    }
    if (kind.equals(GenerationTask.BEHAVE)) {
      return ExtractiveClinician.respond(task, rng);
    }
    if (kind.equals(GenerationTask.BEHAVIOR_JUDGE)) {
      // A judge is a model's reading; a rule pretending to be one would hide that no model ran.
      throw new IllegalArgumentException(
          "task: behavior_judge has no extractive implementation; use the rule classifier");
    }
    if (kind.equals(GenerationTask.BEHAVIOR_CONVERSATION)) {
      // Rewriting a case takes a model; a template passed off as one would hide that none ran.
      throw new IllegalArgumentException(
          "task: behavior_conversation has no extractive implementation; set"
              + " behavior.conversation=template for the deterministic conversation, or"
              + " llm.backend to a model");
    }
    if (kind.equals(GenerationTask.BEHAVIOR_SFT_REWRITE)) {
      throw new IllegalArgumentException(
          "task: behavior_sft_rewrite has no extractive implementation; set"
              + " behavior.sft.rewrite=template for the template targets, or llm.backend to a"
              + " model");
    }
    String document = ExtractiveInputs.text(task, GenerationTask.DOCUMENT);
    switch (kind) {
      case GenerationTask.QA:
        int n = ExtractiveInputs.positive(task, GenerationTask.N);
        return ExtractiveInputs.toJson(ExtractiveQa.generate(document, n, rng));
      case GenerationTask.REPHRASE:
        return ExtractiveRephrase.rephrase(
            document,
            ExtractiveInputs.optional(task, GenerationTask.TITLE),
            ExtractiveInputs.text(task, GenerationTask.STYLE),
            rng);
      case GenerationTask.ENTITIES:
        int max = ExtractiveInputs.positive(task, GenerationTask.MAX_ENTITIES);
        return ExtractiveInputs.toJson(ExtractiveEntityDoc.entities(document, max));
      case GenerationTask.SUMMARY_ENTITIES:
        return ExtractiveInputs.toJson(
            ExtractiveEntityDoc.summaryAndEntities(
                document, ExtractiveInputs.optional(task, GenerationTask.TITLE)));
      case GenerationTask.ENTITY_DOC:
        return ExtractiveEntityDoc.entityDoc(
            document, ExtractiveInputs.strings(task, GenerationTask.ENTITIES_VAR, 1, 3));
      case GenerationTask.FOCAL:
        return ExtractiveFocal.rewrite(
            document,
            ExtractiveInputs.strings(task, GenerationTask.QUESTIONS, 1, Integer.MAX_VALUE));
      default:
        throw new IllegalArgumentException("task: " + kind + " has no extractive implementation");
    }
  }

  /** 64 bits of SHA-256 over the task map in key order, so equal inputs give equal streams. */
  private static long inputHash(Map<String, String> task) {
    List<String> parts = new ArrayList<>();
    new TreeMap<>(task)
        .forEach(
            (key, value) -> {
              parts.add(key);
              parts.add(value);
            });
    byte[] digest = Keys.sha256(String.join("\u001f", parts).getBytes(StandardCharsets.UTF_8));
    return ByteBuffer.wrap(digest).getLong();
  }

  /** SplitMix64's finaliser: neighbouring seeds (seed, seed + 1) become unrelated streams. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  static int whitespaceTokens(String text) {
    int count = 0;
    boolean inToken = false;
    for (int i = 0; i < text.length(); i++) {
      boolean space = Character.isWhitespace(text.charAt(i));
      if (!space && !inToken) {
        count++;
      }
      inToken = !space;
    }
    return count;
  }

  /**
   * The text up to the end of its {@code max}-th whitespace token, as a model cut off by max_tokens
   * would stop.
   */
  private static String firstTokens(String text, int max) {
    int count = 0;
    boolean inToken = false;
    for (int i = 0; i < text.length(); i++) {
      boolean space = Character.isWhitespace(text.charAt(i));
      if (!space && !inToken) {
        count++;
      }
      if (space && inToken && count == max) {
        return text.substring(0, i);
      }
      inToken = !space;
    }
    return text;
  }
}
