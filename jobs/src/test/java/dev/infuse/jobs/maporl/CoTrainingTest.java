package dev.infuse.jobs.maporl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.lm.rl.RlCheckpoints;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * A toy MAPoRL co-training on CPU with a fixed seed: two tiny DJL policies, trained first by {@code
 * train} on arithmetic sentences, discuss a few sums, are rewarded by the exact verifier, and are
 * updated each in its own Spark task. It asserts what must hold whatever the toy models learn:
 * rewards, updates and checkpoints are written for every iteration, and a run killed after an
 * agent's update resumes without updating that agent again.
 */
class CoTrainingTest {
  private static final SparkSession SPARK = SparkTestSession.get();

  @Test
  void coTrainsTwoTinyPoliciesAndResumesAfterAKill() throws Exception {
    String warehouse = SparkTestSession.tempDir("maporl").toString();
    Warehouse w = new Warehouse(SPARK, warehouse);
    List<Row> documents = new ArrayList<>();
    List<Row> questions = new ArrayList<>();
    for (int a = 1; a <= 6; a++) {
      StringBuilder text = new StringBuilder();
      for (int b = 1; b <= 6; b++) {
        text.append(a).append(" + ").append(b).append(" = ").append(a + b);
        text.append(". Answer: \\boxed{").append(a + b).append("}\n");
      }
      documents.add(
          RowFactory.create(
              "arithmetic:" + a,
              "arithmetic",
              "Sums with " + a,
              text.toString(),
              "generated",
              "CC0-1.0",
              Map.of()));
    }
    for (int q = 1; q <= 3; q++) {
      questions.add(
          RowFactory.create(
              "gsm8k:s" + q,
              null,
              "gsm8k",
              "train",
              "What is " + q + " + 2?",
              null,
              Integer.toString(q + 2),
              null,
              "numeric",
              List.of(),
              Map.of()));
    }
    write(w, "documents", documents);
    write(w, "questions", questions);
    for (String model : List.of("a", "b")) {
      CliResult train =
          SparkTestSession.cli(
              "train",
              "--warehouse",
              warehouse,
              "--model-dir",
              "models/" + model,
              "--steps",
              "3",
              "--set",
              "run.seed=" + (model.equals("a") ? 1 : 2),
              "--set",
              "train.layers=1",
              "--set",
              "train.d_model=32",
              "--set",
              "train.heads=2",
              "--set",
              "train.sequence_length=96",
              "--set",
              "train.batch_size=2",
              "--set",
              "train.warmup_steps=1",
              "--set",
              "train.sources=[documents]",
              "--set",
              "train.device=cpu");
      assertThat(train.code()).as(train.toString()).isZero();
    }
    String[] maporl = {
      "maporl",
      "--warehouse",
      warehouse,
      "--iterations",
      "2",
      "--policies",
      "models/a,models/b",
      "--set",
      "discuss.agents=[{id: a, max_tokens: 6}, {id: b, max_tokens: 6}]",
      "--set",
      "discuss.turns=2",
      "--set",
      "maporl.epochs=1",
      "--set",
      "maporl.mini_batch_size=4",
      "--set",
      "maporl.learning_rate=1.0e-3",
      "--set",
      "llm.device=cpu",
      "--set",
      "maporl.export=export/rollouts.jsonl"
    };
    CliResult first = SparkTestSession.cli(maporl);
    assertThat(first.code()).as(first.toString()).isZero();
    assertThat(first.out()).contains("maporl: maporl-").contains("2 iteration(s)");

    List<Row> updates = w.read("maporl_updates").orderBy("iteration", "agent_id").collectAsList();
    assertThat(updates).hasSize(4);
    for (Row update : updates) {
      assertThat(update.<Boolean>getAs("trained")).isTrue();
      // 3 questions x 2 turns, every response rewarded.
      assertThat(update.<Integer>getAs("samples")).isEqualTo(6);
      assertThat(update.<Double>getAs("kl")).isNotNull();
      assertThat(Path.of(update.<String>getAs("checkpoint")).resolve(RlCheckpoints.COMPLETE))
          .exists();
    }
    // Iteration 2's discussion was served by iteration 1's checkpoints.
    List<String> models =
        w.read("rollouts")
            .filter("iteration = 2")
            .select("model")
            .distinct()
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList();
    assertThat(models)
        .hasSize(2)
        .allSatisfy(m -> assertThat(m).startsWith("djl:").contains("iter-00000001"));
    assertThat(w.read("rewards").count()).isEqualTo(24);
    assertThat(w.read("discussion_scores").filter("metric = 'majority_accuracy'").count())
        .isEqualTo(4);
    try (var files = Files.list(Path.of(warehouse, "export", "rollouts.jsonl"))) {
      assertThat(files.filter(f -> f.getFileName().toString().endsWith(".json")).count())
          .isEqualTo(1);
    }

    // Kill after agent a's last update: b's iteration-2 checkpoint and statistics never landed.
    Path b = Path.of(warehouse, "maporl", "b");
    deleteRecursively(RlCheckpoints.directory(b, 2));
    Files.delete(AgentUpdateTask.statsFile(b, 2));
    CliResult resumed = SparkTestSession.cli(maporl);
    assertThat(resumed.code()).as(resumed.toString()).isZero();
    assertThat(resumed.out())
        .contains("iteration 2, a: ppo update (resumed from its checkpoint)")
        .contains("iteration 1, b: ppo update (resumed from its checkpoint)")
        .contains("0 called");
    assertThat(RlCheckpoints.directory(b, 2).resolve(RlCheckpoints.COMPLETE)).exists();
    assertThat(w.read("maporl_updates").count()).isEqualTo(4);
  }

  private static void write(Warehouse w, String table, List<Row> rows) {
    Contract contract = Contracts.load(table);
    w.upsert(contract, SPARK.createDataFrame(rows, contract.schema()));
  }

  private static void deleteRecursively(Path dir) throws Exception {
    try (var walk = Files.walk(dir)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
