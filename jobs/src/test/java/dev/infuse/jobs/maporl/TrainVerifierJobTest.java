package dev.infuse.jobs.maporl;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.ModelDirectory;
import dev.infuse.udfs.lm.TinyLms;
import dev.infuse.udfs.lm.rl.ScalarVerifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * train-verifier on hand-written rollouts whose correct responses end in \boxed{18} and wrong ones
 * in \boxed{17}: after balancing (two of each class per question, a one-class question left out) a
 * tiny verifier learns to score a held-out 18 above a 17.
 */
class TrainVerifierJobTest {
  private static final SparkSession SPARK = SparkTestSession.get();

  private static final List<String> QUESTIONS =
      List.of(
          "Tom has 9 apples and buys 9 more. How many now?",
          "Ann has 10 pens and finds 8 more. How many now?",
          "A box holds 6 eggs. How many eggs are in 3 boxes?",
          "Sam reads 12 pages and then 6 more. How many pages?");

  @Test
  void trainsAVerifierThatPrefersTheRightAnswer() throws Exception {
    String warehouse = SparkTestSession.tempDir("train-verifier").toString();
    Warehouse w = new Warehouse(SPARK, warehouse);
    Contract questions = Contracts.load("questions");
    List<Row> questionRows = new ArrayList<>();
    for (int q = 0; q < QUESTIONS.size(); q++) {
      questionRows.add(
          RowFactory.create(
              "gsm8k:q" + q,
              null,
              "gsm8k",
              "train",
              QUESTIONS.get(q),
              null,
              "18",
              null,
              "numeric",
              List.of(),
              Map.of()));
    }
    w.upsert(questions, SPARK.createDataFrame(questionRows, questions.schema()));

    List<Row> rollouts = new ArrayList<>();
    String[] leads = {"i think it is", "adding up gives", "the count is"};
    for (int q = 0; q < QUESTIONS.size(); q++) {
      for (int i = 0; i < leads.length; i++) {
        rollouts.add(rollout(q, i, leads[i] + " 18. answer: \\boxed{18}", true));
        // q3 has only right answers: no balanced pair, so it is left out.
        if (q < 3) {
          rollouts.add(rollout(q, 10 + i, leads[i] + " 17. answer: \\boxed{17}", false));
        }
      }
    }
    Contract contract = Contracts.load("rollouts");
    w.upsert(contract, SPARK.createDataFrame(rollouts, contract.schema()));

    Path base = Path.of(warehouse, "models/base");
    try (DecoderLm lm = TinyLms.create(3)) {
      ModelDirectory.save(lm, base);
    }

    long started = System.nanoTime();
    CliResult result =
        SparkTestSession.cli(
            "train-verifier",
            "--warehouse",
            warehouse,
            "--base-model",
            "models/base",
            "--steps",
            "60",
            "--set",
            "train_verifier.per_class_per_question=2",
            "--set",
            "train_verifier.learning_rate=0.005");
    assertThat(result.code()).as(result.toString()).isZero();
    Path output = Path.of(warehouse, "models/verifier").toAbsolutePath().normalize();
    assertThat(result.out())
        .contains(
            "train-verifier: 21 rollout row(s): 12 example(s) (6 correct, 6 wrong) after"
                + " balancing, 60 step(s), final loss ")
        .contains("verifier written to " + output);
    assertThat(ScalarVerifier.isVerifier(output)).isTrue();

    Row run =
        w.read("runs")
            .filter("job = 'train-verifier'")
            .selectExpr(
                "status",
                "input_count",
                "output_count",
                "quarantined_count",
                "counts['examples.trained']",
                "counts['balance.dropped']")
            .head();
    assertThat(run.getString(0)).isEqualTo("succeeded");
    assertThat(run.getLong(1)).isEqualTo(21);
    assertThat(run.getLong(2)).isEqualTo(21);
    assertThat(run.getLong(3)).isZero();
    assertThat(run.getLong(4)).isEqualTo(12);
    assertThat(run.getLong(5)).isEqualTo(9);

    String held = "Lia has 9 cards and gets 9 more. How many now?";
    try (ScalarVerifier verifier = ScalarVerifier.load(output, Device.cpu())) {
      int[][] right = VerifierModels.ids(verifier, held, "so we get 18. answer: \\boxed{18}");
      int[][] wrong = VerifierModels.ids(verifier, held, "so we get 17. answer: \\boxed{17}");
      double rightScore = verifier.score(right[0], right[1]);
      double wrongScore = verifier.score(wrong[0], wrong[1]);
      assertThat(rightScore).as("P(correct) of 18 vs 17").isGreaterThan(wrongScore + 0.2);
    }
    System.out.printf("train-verifier test: %.1f s%n", (System.nanoTime() - started) / 1e9);
  }

  private static Row rollout(int q, int agent, String response, boolean correct) {
    String questionId = "gsm8k:q" + q;
    return RowFactory.create(
        "ep-" + q,
        "disc-1",
        questionId,
        "gsm8k",
        "gsm8k",
        "agent-" + agent,
        "openai:m",
        0,
        "[{\"role\":\"user\",\"content\":\"" + QUESTIONS.get(q) + "\"}]",
        response,
        correct ? "18" : "17",
        "ok",
        correct,
        "exact",
        correct ? 1.0 : 0.0,
        null,
        "call-" + q + "-" + agent,
        "maporl-first@1",
        null,
        "run-discuss");
  }
}
