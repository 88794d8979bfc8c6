package dev.infuse.jobs.behavior;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.PlainChatTemplate;
import dev.infuse.udfs.lm.CausalLm;
import dev.infuse.udfs.lm.LmModelSpec;
import dev.infuse.udfs.lm.LogLikelihoodScorer;
import dev.infuse.udfs.model.ExecutorModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * BehaviorSFT on CPU with a fixed seed: sft-data's tokenized export trains a tiny model with the
 * loss on the targets alone, and on the held-apart tasks the trained model ranks the right
 * behavioural token first (by log-likelihood after the prompt) more often than the model it started
 * from.
 */
class BehaviorSftLearningTest {
  private static final List<String> TOKENS = List.of("<reactive>", "<proactive>", "<restraint>");

  @Test
  void aModelTrainedOnTheSftDataPicksTheRightBehaviourTokenMoreOftenThanBefore() throws Exception {
    String warehouse = ClinicalWarehouse.get();
    ok("build-behavior-tasks", "--warehouse", warehouse);
    CliResult sft =
        ok(
            "sft-data",
            "--warehouse",
            warehouse,
            "--output",
            "sft/learning",
            "--set",
            "behavior.sft.sequence_length=128");
    assertThat(sft.out()).contains("parquet/: 28 training sequence(s) of 128 tokens");
    Path parquet = Path.of(warehouse, "sft", "learning", "parquet");

    // "Before": one step at a negligible rate, so the seeded initial model; "after": 150 steps.
    String before = train(warehouse, parquet, "before", 1, "1.0e-9");
    String after = train(warehouse, parquet, "after", 150, "3.0e-3");

    List<String> prompts = new ArrayList<>();
    List<Integer> gold = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    for (String line : Files.readAllLines(Path.of(warehouse, "sft", "learning", "heldout.jsonl"))) {
      JsonNode example = json.readTree(line);
      List<ChatMessage> messages = new ArrayList<>();
      JsonNode all = example.get("messages");
      for (int i = 0; i < all.size() - 1; i++) {
        messages.add(
            new ChatMessage(all.get(i).get("role").asText(), all.get(i).get("content").asText()));
      }
      prompts.add(PlainChatTemplate.render(messages));
      gold.add(TOKENS.indexOf("<" + example.get("behavior").asText() + ">"));
    }
    assertThat(prompts).hasSize(10);
    int right0 = rightTokens(before, prompts, gold);
    int right1 = rightTokens(after, prompts, gold);
    System.out.printf(
        "held-out tasks: right behaviour token %d/10 before, %d/10 after%n", right0, right1);
    assertThat(right1).isGreaterThan(right0);
  }

  private static int rightTokens(String modelDir, List<String> prompts, List<Integer> gold) {
    CausalLm model = ExecutorModels.get(new LmModelSpec(modelDir, "cpu"));
    LogLikelihoodScorer scorer = new LogLikelihoodScorer(model, 8);
    int right = 0;
    for (int i = 0; i < prompts.size(); i++) {
      if (scorer.multipleChoice(prompts.get(i), TOKENS).acc() == gold.get(i)) {
        right++;
      }
    }
    return right;
  }

  private static String train(
      String warehouse, Path parquet, String name, int steps, String learningRate) {
    String modelDir = Path.of(warehouse, "models", "sft-" + name).toString();
    ok(
        "train",
        "--warehouse",
        warehouse,
        "--shards",
        parquet.toString(),
        "--model-dir",
        modelDir,
        "--steps",
        "" + steps,
        "--set",
        "train.loss_on=answer",
        "--set",
        "train.sequence_length=128",
        "--set",
        "train.context_length=128",
        "--set",
        "train.layers=1",
        "--set",
        "train.d_model=32",
        "--set",
        "train.heads=2",
        "--set",
        "train.learning_rate=" + learningRate,
        "--set",
        "train.min_learning_rate=" + learningRate,
        "--set",
        "train.warmup_steps=0",
        "--set",
        "train.device=cpu");
    return modelDir;
  }

  private static CliResult ok(String... args) {
    CliResult result = SparkTestSession.cli(args);
    assertThat(result.code()).as(result.toString()).isZero();
    return result;
  }
}
