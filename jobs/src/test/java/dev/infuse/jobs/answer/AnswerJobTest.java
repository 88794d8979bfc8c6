package dev.infuse.jobs.answer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import ai.djl.Device;
import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.cli.JobCatalog;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.run.RecordedSteps;
import dev.infuse.jobs.run.StepFailedException;
import dev.infuse.udfs.answer.AnswerInput;
import dev.infuse.udfs.answer.PromptFormat;
import dev.infuse.udfs.answer.PromptFormats;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import dev.infuse.udfs.lm.CausalLm;
import dev.infuse.udfs.lm.LogLikelihoodScorer;
import dev.infuse.udfs.lm.ModelDirectory;
import dev.infuse.udfs.lm.MultipleChoiceScore;
import dev.infuse.udfs.text.Tokenizers;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * answer on real QuALITY questions (samples/quality, the same file as
 * ../shared/benchmarks/quality): the model-free default in closed book and in rag over hand-written
 * retrievals, generate mode against an OpenAI-compatible server (cached on rerun), and
 * loglikelihood with a tiny trained model.
 */
class AnswerJobTest {
  private static final SparkSession SPARK = SparkTestSession.get();

  /**
   * The retrievals table as the retrieve job writes it (its contract is the retrieval helper's).
   */
  private static final Contract RETRIEVALS =
      new Contract(
          "retrievals",
          1,
          "test copy of the agreed schema",
          List.of("rag_recipe", "retriever", "question_id", "rank"),
          List.of(),
          List.of(
              new Contract.Column("run_id", "string", false, ""),
              new Contract.Column("question_id", "string", false, ""),
              new Contract.Column("benchmark", "string", false, ""),
              new Contract.Column("retriever", "string", false, ""),
              new Contract.Column("rank", "int", false, ""),
              new Contract.Column("chunk_id", "string", false, ""),
              new Contract.Column("doc_id", "string", false, ""),
              new Contract.Column("score", "double", false, ""),
              new Contract.Column("rag_recipe", "string", false, "")),
          List.of());

  private static String warehouse;
  private static List<Row> firstQuestions;

  @BeforeAll
  static void ingestAndChunkQuality() {
    // Ingested and chunked at 256 tokens once per test JVM (exit codes checked there); this class's
    // own copy.
    warehouse = QualitySample.chunkedCopy(256, "answer");
    Warehouse w = new Warehouse(SPARK, warehouse);
    firstQuestions =
        w.read("questions")
            .filter("benchmark = 'quality'")
            .orderBy("question_id")
            .limit(3)
            .collectAsList();
    // Two questions get three bm25 chunks of their own article (ranks 1..3 = ordinals 0..2) and one
    // dense
    // chunk; the third question gets none, so rag must quarantine it.
    List<Row> rows = new ArrayList<>();
    for (Row question : firstQuestions.subList(0, 2)) {
      List<Row> chunks =
          w.read("chunks")
              .filter("doc_id = '" + question.getAs("doc_id") + "'")
              .orderBy("ordinal")
              .limit(3)
              .collectAsList();
      for (int rank = 1; rank <= 3; rank++) {
        rows.add(
            RowFactory.create(
                "retrieve-test",
                question.getAs("question_id"),
                "quality",
                "bm25",
                rank,
                chunks.get(rank - 1).getAs("chunk_id"),
                question.getAs("doc_id"),
                10.0 - rank,
                "default"));
      }
      rows.add(
          RowFactory.create(
              "retrieve-test",
              question.getAs("question_id"),
              "quality",
              "dense",
              1,
              chunks.get(2).getAs("chunk_id"),
              question.getAs("doc_id"),
              0.9,
              "default"));
    }
    w.upsert(RETRIEVALS, SPARK.createDataFrame(rows, RETRIEVALS.schema()));
  }

  @Test
  void closedBookWithTheModelFreeDefaultAnswersFromTheQuestionAlone() {
    CliResult result =
        SparkTestSession.cli(
            "answer", "--warehouse", warehouse, "--benchmark", "quality", "--max-questions", "4");
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(result.out())
        .contains("embedding mode")
        .contains("weak but real")
        .contains("4 answered, 0 quarantined");
    List<Row> predictions = predictionsOf(result);
    assertThat(predictions).hasSize(4);
    Map<String, String> gold = gold();
    for (Row p : predictions) {
      assertThat(p.<String>getAs("setting")).isEqualTo("closed_book");
      assertThat(p.<String>getAs("answer_mode")).isEqualTo("embedding");
      assertThat(p.<String>getAs("backend")).isEqualTo("extractive");
      assertThat(p.<String>getAs("model")).isEqualTo("all-minilm-l6-v2");
      assertThat(p.<String>getAs("prompt_version")).isEqualTo("embedding-option@1");
      // Closed book never reads the article: the options are compared with the question itself.
      assertThat(p.<String>getAs("raw_output"))
          .contains("against the question itself (closed book)");
      assertThat(p.getList(p.fieldIndex("option_scores"))).hasSize(4);
      assertThat(p.<Object>getAs("chunk_ids")).isNull();
      assertThat(p.<Object>getAs("synthetic_tokens")).isNull();
      // The answer is the option with the highest cosine, and correct says whether it is the gold
      // one.
      List<Double> scores = p.getList(p.fieldIndex("option_scores"));
      int best = scores.indexOf(scores.stream().max(Double::compare).orElseThrow());
      assertThat(p.<String>getAs("parsed_answer")).isEqualTo(String.valueOf((char) ('A' + best)));
      assertThat(p.<Boolean>getAs("correct"))
          .isEqualTo(p.getAs("parsed_answer").equals(gold.get(p.<String>getAs("question_id"))));
    }
    Row run =
        new Warehouse(SPARK, warehouse)
            .read("runs")
            .filter("run_id = '" + runId(result) + "'")
            .head();
    assertThat(run.<Long>getAs("input_count")).isEqualTo(4L);
    assertThat(run.<Long>getAs("output_count")).isEqualTo(4L);
  }

  @Test
  void ragPutsTheTopKChunksInTheConfiguredOrderAndQuarantinesQuestionsWithoutRetrievals() {
    CliResult ambiguous =
        SparkTestSession.cli(
            "answer",
            "--warehouse",
            warehouse,
            "--benchmark",
            "quality",
            "--setting",
            "rag",
            "--max-questions",
            "3");
    assertThat(ambiguous.code()).as(ambiguous.toString()).isEqualTo(2);
    assertThat(ambiguous.err()).contains("answer.retriever").contains("bm25, dense");

    CliResult result =
        SparkTestSession.cli(
            "answer",
            "--warehouse",
            warehouse,
            "--benchmark",
            "quality",
            "--setting",
            "rag",
            "--retriever",
            "bm25",
            "--k",
            "2",
            "--max-questions",
            "3");
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(result.out()).contains("3 question(s): 2 answered, 1 quarantined");
    Map<String, List<String>> ranked = bm25ChunksByRank();
    for (Row p : predictionsOf(result)) {
      List<String> expected = ranked.get(p.<String>getAs("question_id"));
      // best_last: the best chunk nearest the question, i.e. last.
      assertThat(p.getList(p.fieldIndex("chunk_ids")))
          .containsExactly(expected.get(1), expected.get(0));
      assertThat(p.<String>getAs("retriever")).isEqualTo("bm25");
      assertThat(p.<String>getAs("raw_output")).contains("against 2 retrieved chunk(s)");
    }
    Row quarantined =
        new Warehouse(SPARK, warehouse)
            .read("quarantine")
            .filter("run_id = '" + runId(result) + "'")
            .head();
    assertThat(quarantined.<String>getAs("location"))
        .isEqualTo(firstQuestions.get(2).getAs("question_id"));
    assertThat(quarantined.<String>getAs("reason"))
        .contains("no retrievals for this question from retriever bm25");

    CliResult bestFirst =
        SparkTestSession.cli(
            "answer",
            "--warehouse",
            warehouse,
            "--benchmark",
            "quality",
            "--setting",
            "rag",
            "--retriever",
            "bm25",
            "--k",
            "3",
            "--chunk-order",
            "best_first",
            "--max-questions",
            "2");
    assertThat(bestFirst.code()).as(bestFirst.toString()).isZero();
    for (Row p : predictionsOf(bestFirst)) {
      assertThat(p.getList(p.fieldIndex("chunk_ids")))
          .containsExactlyElementsOf(ranked.get(p.<String>getAs("question_id")));
    }
  }

  @Test
  void generateAsksTheServerParsesTheAnswerAndARerunIsAnsweredFromTheCache() throws Exception {
    String second = firstQuestions.get(1).getAs("question");
    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      server.setResponder(
          request ->
              request.toString().contains(jsonEscaped(second))
                  ? "I cannot tell from the text."
                  : "Let me think. The story says so.\nThe answer is (B).");
      String[] args = {
        "answer",
        "--warehouse",
        warehouse,
        "--benchmark",
        "quality",
        "--setting",
        "rag",
        "--retriever",
        "bm25",
        "--k",
        "2",
        "--max-questions",
        "2",
        "--set",
        "llm.backend=openai",
        "--set",
        "llm.base_url=" + server.baseUrl(),
        "--set",
        "llm.model=fake-1",
        "--set",
        "llm.initial_backoff_millis=10"
      };
      CliResult result = SparkTestSession.cli(args);
      assertThat(result.code()).as(result.toString()).isZero();
      assertThat(server.totalRequests()).isEqualTo(2);
      // The prompt holds the two best chunks, the best one last, then the title, question and
      // options.
      Map<String, List<String>> ranked = bm25ChunksByRank();
      Map<String, String> chunkText =
          new Warehouse(SPARK, warehouse)
              .read("chunks").collectAsList().stream()
                  .collect(Collectors.toMap(r -> r.getAs("chunk_id"), r -> r.getAs("text")));
      String firstId = firstQuestions.get(0).getAs("question_id");
      String prompt =
          server.received().stream()
              .map(FakeOpenAiServer.Received::lastUserMessage)
              .filter(m -> m.contains(firstQuestions.get(0).<String>getAs("question")))
              .findFirst()
              .orElseThrow();
      int best = prompt.indexOf(chunkText.get(ranked.get(firstId).get(0)).strip());
      int next = prompt.indexOf(chunkText.get(ranked.get(firstId).get(1)).strip());
      assertThat(next).isGreaterThanOrEqualTo(0).isLessThan(best);
      assertThat(prompt).contains("(D) ").endsWith("in the form: The answer is (X).");

      Map<String, Row> byQuestion =
          predictionsOf(result).stream()
              .collect(Collectors.toMap(r -> r.getAs("question_id"), r -> r));
      Map<String, String> gold = gold();
      Row answered = byQuestion.get(firstId);
      assertThat(answered.<String>getAs("answer_mode")).isEqualTo("generate");
      assertThat(answered.<String>getAs("prompt_version")).isEqualTo("quality-mcq@1");
      assertThat(answered.<String>getAs("model")).isEqualTo("fake-1");
      assertThat(answered.<String>getAs("parsed_answer")).isEqualTo("B");
      assertThat(answered.<Boolean>getAs("correct")).isEqualTo("B".equals(gold.get(firstId)));
      assertThat(answered.<String>getAs("llm_call_key")).isNotNull();
      Row unparseable = byQuestion.get(firstQuestions.get(1).<String>getAs("question_id"));
      assertThat(unparseable.<String>getAs("raw_output")).isEqualTo("I cannot tell from the text.");
      assertThat(unparseable.<Object>getAs("parsed_answer")).isNull();
      assertThat(unparseable.<Boolean>getAs("correct")).as("unparseable counts wrong").isFalse();
      assertThat(result.out()).contains("1 unparseable");

      CliResult again = SparkTestSession.cli(args);
      assertThat(again.code()).as(again.toString()).isZero();
      assertThat(server.totalRequests()).as("a rerun is answered from llm_calls").isEqualTo(2);
      assertThat(again.out()).contains("2 cached, 0 called");
      assertThat(predictionsOf(again))
          .extracting(r -> r.<String>getAs("parsed_answer"))
          .containsOnly("B", null);
    }
  }

  @Test
  void loglikelihoodWithATinyTrainedModelStoresEveryOptionsScoreAndItsSyntheticTokens()
      throws Exception {
    CliResult train =
        SparkTestSession.cli(
            "train",
            "--warehouse",
            warehouse,
            "--model-dir",
            "models/tiny",
            "--steps",
            "2",
            "--set",
            "train.layers=1",
            "--set",
            "train.d_model=32",
            "--set",
            "train.heads=2",
            "--set",
            "train.sequence_length=32",
            "--set",
            "train.batch_size=2",
            "--set",
            "train.warmup_steps=1",
            "--set",
            "train.sources=[documents]",
            "--set",
            "train.device=cpu");
    assertThat(train.code()).as(train.toString()).isZero();
    Path model = Path.of(warehouse, "models/tiny");
    String[] args = {
      "answer",
      "--warehouse",
      warehouse,
      "--benchmark",
      "quality",
      "--setting",
      "trained",
      "--model-dir",
      "models/tiny",
      "--max-questions",
      "2",
      "--set",
      "llm.device=cpu"
    };

    assertThat(AnswerJob.syntheticTokens(model)).as("train_info.json without the key").isNull();

    // The shard work records the synthetic tokens a model was trained on; answer carries them to
    // every row.
    Path info = model.resolve("train_info.json");
    Files.writeString(
        info, Files.readString(info).replaceFirst("\\{", "{\n  \"synthetic_tokens\" : 123456,"));
    CliResult result = SparkTestSession.cli(args);
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(result.out()).contains("loglikelihood mode").contains("123456 synthetic token(s)");

    Map<String, Row> documents =
        new Warehouse(SPARK, warehouse)
            .read("documents").collectAsList().stream()
                .collect(Collectors.toMap(r -> r.getAs("doc_id"), r -> r, (a, b) -> a));
    PromptFormat format = PromptFormats.forBenchmark("quality");
    try (CausalLm lm = ModelDirectory.load(model, Device.cpu())) {
      LogLikelihoodScorer scorer = new LogLikelihoodScorer(lm, 4);
      List<Row> predictions = predictionsOf(result);
      assertThat(predictions).hasSize(2);
      for (Row p : predictions) {
        Row question =
            firstQuestions.stream()
                .filter(q -> q.getAs("question_id").equals(p.getAs("question_id")))
                .findFirst()
                .orElseThrow();
        AnswerInput input =
            new AnswerInput(
                question.getAs("question_id"),
                "quality",
                "mcq",
                question.getAs("question"),
                question.getList(question.fieldIndex("options")),
                documents.get(question.<String>getAs("doc_id")).getAs("title"),
                null,
                List.of());
        MultipleChoiceScore expected =
            scorer.multipleChoice(
                format.loglikelihoodContext(input), format.loglikelihoodChoices(input));
        List<Double> scores = p.getList(p.fieldIndex("option_scores"));
        assertThat(scores).hasSize(4);
        for (int i = 0; i < 4; i++) {
          assertThat(scores.get(i))
              .isCloseTo(expected.choices().get(i).logLikelihood(), within(1e-3));
        }
        assertThat(p.<String>getAs("parsed_answer"))
            .isEqualTo(String.valueOf((char) ('A' + expected.acc())));
        assertThat(p.<String>getAs("answer_mode")).isEqualTo("loglikelihood");
        assertThat(p.<String>getAs("prompt_version")).isEqualTo("quality-mcq-ll@1");
        assertThat(p.<String>getAs("backend")).isEqualTo("djl");
        assertThat(p.<String>getAs("setting")).isEqualTo("trained");
        assertThat(p.<Long>getAs("synthetic_tokens")).isEqualTo(123456L);
      }
    }

    // The same model in generate mode goes through the djl client and the call cache, whatever
    // llm.model says.
    CliResult generate =
        SparkTestSession.cli(
            "answer",
            "--warehouse",
            warehouse,
            "--benchmark",
            "quality",
            "--setting",
            "trained",
            "--model-dir",
            "models/tiny",
            "--mode",
            "generate",
            "--max-questions",
            "1",
            "--set",
            "llm.device=cpu",
            "--set",
            "answer.max_tokens=4");
    assertThat(generate.code()).as(generate.toString()).isZero();
    Row generated = predictionsOf(generate).get(0);
    assertThat(generated.<String>getAs("backend")).isEqualTo("djl");
    assertThat(generated.<String>getAs("model")).isEqualTo(model.toString());
    assertThat(generated.<String>getAs("prompt_version")).isEqualTo("quality-mcq@1");
    assertThat(generated.<String>getAs("llm_call_key")).isNotNull();
    assertThat(generated.<Boolean>getAs("correct")).isNotNull();
  }

  /**
   * A trained model behind an OpenAI-compatible server (here the loopback one, whose model scores
   * each prompt token by a hash of it and the token before): every option of every question is one
   * completions request through the LLM layer, and the option scores and the answer equal what this
   * test computes from the served model's definition and its tokenizer.json; a rerun asks nothing;
   * text prompts score the same.
   */
  @Test
  void aTrainedEndpointIsScoredByLogLikelihoodThroughTheCompletionsApi() throws Exception {
    Path tokenizer = SparkTestSession.tempDir("endpoint-tokenizer").resolve("tokenizer.json");
    Files.write(tokenizer, Tokenizers.defaultTokenizerJson());
    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      server.setCompletionsTokenizer(AnswerJobTest::ids);
      List<String> args =
          new ArrayList<>(
              List.of(
                  "answer",
                  "--warehouse",
                  warehouse,
                  "--benchmark",
                  "quality",
                  "--setting",
                  "trained",
                  "--max-questions",
                  "3",
                  "--set",
                  "llm.initial_backoff_millis=10",
                  "--set",
                  "answer.endpoint.name=smt-ep-5k",
                  "--set",
                  "answer.endpoint.base_url=" + server.baseUrl(),
                  "--set",
                  "answer.endpoint.model=smt-served",
                  "--set",
                  "answer.endpoint.synthetic_tokens=5000",
                  "--set",
                  "answer.endpoint.tokenizer=" + tokenizer));
      CliResult result = SparkTestSession.cli(args.toArray(String[]::new));
      assertThat(result.code()).as(result.toString()).isZero();
      assertThat(result.out())
          .contains("openai:smt-served in loglikelihood mode")
          .contains("endpoint smt-ep-5k: smt-served at " + server.baseUrl())
          .contains("prompts as token ids")
          .contains("5000 synthetic token(s)");
      assertThat(server.completionRequests()).as("3 questions x 4 options").isEqualTo(12);

      Map<String, Row> documents =
          new Warehouse(SPARK, warehouse)
              .read("documents").collectAsList().stream()
                  .collect(Collectors.toMap(r -> r.getAs("doc_id"), r -> r, (a, b) -> a));
      PromptFormat format = PromptFormats.forBenchmark("quality");
      Map<String, String> gold = gold();
      List<Row> predictions = predictionsOf(result);
      assertThat(predictions).hasSize(3);
      for (Row p : predictions) {
        Row question =
            new Warehouse(SPARK, warehouse)
                .read("questions")
                .filter("question_id = '" + p.getAs("question_id") + "'")
                .head();
        AnswerInput input =
            new AnswerInput(
                question.getAs("question_id"),
                "quality",
                "mcq",
                question.getAs("question"),
                question.getList(question.fieldIndex("options")),
                documents.get(question.<String>getAs("doc_id")).getAs("title"),
                null,
                List.of());
        String context = format.loglikelihoodContext(input);
        List<String> choices = format.loglikelihoodChoices(input);
        double[] expected = new double[choices.size()];
        for (int i = 0; i < choices.size(); i++) {
          expected[i] = referenceLogLikelihood(context, " " + choices.get(i));
        }
        List<Double> scores = p.getList(p.fieldIndex("option_scores"));
        assertThat(scores).hasSize(4);
        for (int i = 0; i < 4; i++) {
          assertThat(scores.get(i)).isCloseTo(expected[i], within(1e-9));
        }
        int best = 0;
        for (int i = 1; i < expected.length; i++) {
          best = expected[i] > expected[best] ? i : best;
        }
        String letter = String.valueOf((char) ('A' + best));
        assertThat(p.<String>getAs("parsed_answer")).isEqualTo(letter);
        assertThat(p.<Boolean>getAs("correct"))
            .isEqualTo(letter.equals(gold.get(p.<String>getAs("question_id"))));
        assertThat(p.<String>getAs("answer_mode")).isEqualTo("loglikelihood");
        assertThat(p.<String>getAs("prompt_version")).isEqualTo("quality-mcq-ll@1");
        assertThat(p.<String>getAs("backend")).isEqualTo("openai");
        assertThat(p.<String>getAs("model")).isEqualTo("smt-served");
        assertThat(p.<String>getAs("setting")).isEqualTo("trained");
        assertThat(p.<Long>getAs("synthetic_tokens")).isEqualTo(5000L);
      }
      Row run =
          new Warehouse(SPARK, warehouse)
              .read("runs")
              .filter("run_id = '" + runId(result) + "'")
              .head();
      Map<String, Long> counts = run.getJavaMap(run.fieldIndex("counts"));
      assertThat(counts)
          .containsEntry("llm.requests", 12L)
          .containsEntry("loglikelihood.add_bos", 0L)
          .containsEntry("loglikelihood.tokenized_requests", 1L);

      CliResult again = SparkTestSession.cli(args.toArray(String[]::new));
      assertThat(again.code()).as(again.toString()).isZero();
      assertThat(again.out()).contains("12 cached, 0 called");
      assertThat(server.completionRequests())
          .as("a rerun is answered from llm_calls")
          .isEqualTo(12);
      assertThat(optionScores(predictionsOf(again))).isEqualTo(optionScores(predictions));

      args.addAll(List.of("--set", "answer.endpoint.tokenized_requests=false"));
      CliResult text = SparkTestSession.cli(args.toArray(String[]::new));
      assertThat(text.code()).as(text.toString()).isZero();
      assertThat(text.out()).contains("prompts as text");
      assertThat(server.completionRequests()).as("text prompts are other requests").isEqualTo(24);
      assertThat(optionScores(predictionsOf(text))).isEqualTo(optionScores(predictions));
    }
  }

  @Test
  void aTrainedEndpointAnswersByGenerationAndAServerWithoutPromptLogprobsFailsClearly()
      throws Exception {
    Path tokenizer = SparkTestSession.tempDir("endpoint-tokenizer").resolve("tokenizer.json");
    Files.write(tokenizer, Tokenizers.defaultTokenizerJson());
    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      server.setResponder(request -> "Having read it, the answer is (C).");
      String[] endpoint = {
        "--set",
        "llm.initial_backoff_millis=10",
        "--set",
        "answer.endpoint.base_url=" + server.baseUrl(),
        "--set",
        "answer.endpoint.model=tgi-like",
        "--set",
        "answer.endpoint.tokenizer=" + tokenizer
      };
      CliResult generate =
          SparkTestSession.cli(
              concat(
                  new String[] {
                    "answer",
                    "--warehouse",
                    warehouse,
                    "--benchmark",
                    "quality",
                    "--setting",
                    "trained",
                    "--mode",
                    "generate",
                    "--max-questions",
                    "2"
                  },
                  endpoint));
      assertThat(generate.code()).as(generate.toString()).isZero();
      assertThat(server.completionRequests()).isZero();
      assertThat(server.received())
          .hasSize(2)
          .allMatch(r -> r.path().equals(FakeOpenAiServer.PATH));
      for (Row p : predictionsOf(generate)) {
        assertThat(p.<String>getAs("answer_mode")).isEqualTo("generate");
        assertThat(p.<String>getAs("backend")).isEqualTo("openai");
        assertThat(p.<String>getAs("model")).isEqualTo("tgi-like");
        assertThat(p.<String>getAs("parsed_answer")).isEqualTo("C");
        assertThat(p.<String>getAs("llm_call_key")).isNotNull();
      }

      // The same server cannot echo prompt log-probabilities: the run fails once, naming the
      // setting to change, and its questions are quarantined with the reason.
      server.withoutPromptLogprobs();
      CliResult scored =
          SparkTestSession.cli(
              concat(
                  new String[] {
                    "answer",
                    "--warehouse",
                    warehouse,
                    "--benchmark",
                    "quality",
                    "--setting",
                    "trained",
                    "--max-questions",
                    "2"
                  },
                  endpoint));
      assertThat(scored.code()).as(scored.toString()).isEqualTo(1);
      assertThat(scored.err())
          .contains("tgi-like at " + server.baseUrl() + " cannot score answer.mode loglikelihood")
          .contains(dev.infuse.udfs.llm.LoglikelihoodPrompt.NO_PROMPT_LOGPROBS)
          .contains("set answer.mode=generate");
      assertThat(scored.out()).contains("2 question(s): 0 answered, 2 quarantined");
      assertThat(server.completionRequests()).as("each option once, never retried").isEqualTo(8);

      CliResult noTokenizer =
          SparkTestSession.cli(
              "answer",
              "--warehouse",
              warehouse,
              "--benchmark",
              "quality",
              "--setting",
              "trained",
              "--set",
              "answer.endpoint.base_url=" + server.baseUrl(),
              "--set",
              "answer.endpoint.model=tgi-like");
      assertThat(noTokenizer.code()).isEqualTo(2);
      assertThat(noTokenizer.err())
          .contains("answer.endpoint.tokenizer: got nothing for tgi-like in loglikelihood mode")
          .contains("or answer.mode=generate");
    }
  }

  /**
   * The served model's log-likelihood of {@code continuation} after {@code context}, from its
   * definition ({@link FakeOpenAiServer#promptLogprob}) and the harness's rule for the tokens: the
   * context's trailing whitespace moves to the continuation, whose tokens are those after the
   * context's.
   */
  private static double referenceLogLikelihood(String context, String continuation) {
    String trimmed = context.stripTrailing();
    long[] ctx = ids(trimmed);
    long[] whole = ids(context + continuation);
    double sum = 0;
    for (int j = ctx.length; j < whole.length; j++) {
      sum += FakeOpenAiServer.promptLogprob(whole[j - 1], whole[j]);
    }
    return sum;
  }

  private static long[] ids(String text) {
    return java.util.Arrays.stream(Tokenizers.defaultTokenizer().ids(text))
        .asLongStream()
        .toArray();
  }

  private static Map<String, List<Double>> optionScores(List<Row> predictions) {
    return predictions.stream()
        .collect(
            Collectors.toMap(
                r -> r.getAs("question_id"), r -> r.getList(r.fieldIndex("option_scores"))));
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void badOptionsFailAsConfigErrorsNamingTheKey() {
    CliResult typo =
        SparkTestSession.cli("answer", "--warehouse", warehouse, "--benchmark", "qualty");
    assertThat(typo.code()).isEqualTo(2);
    assertThat(typo.err()).contains("answer.benchmark: got qualty (did you mean quality?)");
    CliResult generate =
        SparkTestSession.cli(
            "answer", "--warehouse", warehouse, "--benchmark", "quality", "--mode", "generate");
    assertThat(generate.code()).isEqualTo(2);
    assertThat(generate.err()).contains("answer.mode: got generate with llm.backend extractive");
    CliResult order =
        SparkTestSession.cli(
            "answer",
            "--warehouse",
            warehouse,
            "--benchmark",
            "quality",
            "--chunk-order",
            "middle");
    assertThat(order.code()).isEqualTo(2);
    assertThat(order.err())
        .contains("answer.chunk_order: got middle, expected best_first or best_last");
    CliResult trained =
        SparkTestSession.cli(
            "answer", "--warehouse", warehouse, "--benchmark", "quality", "--setting", "trained");
    assertThat(trained.code()).isEqualTo(2);
    assertThat(trained.err()).contains("answer.model_dir: got nothing");
    CliResult embeddingTrained =
        SparkTestSession.cli(
            "answer",
            "--warehouse",
            warehouse,
            "--benchmark",
            "quality",
            "--setting",
            "trained_rag",
            "--mode",
            "embedding",
            "--model-dir",
            "models/none");
    assertThat(embeddingTrained.code()).isEqualTo(2);
    assertThat(embeddingTrained.err())
        .contains("answer.mode: got embedding with answer.setting trained_rag");
  }

  @Test
  void syntheticTokensAreReadFromTrainInfoWhenPresent() throws Exception {
    Path dir = SparkTestSession.tempDir("model");
    assertThat(AnswerJob.syntheticTokens(dir)).as("no train_info.json").isNull();
    Files.writeString(
        dir.resolve("train_info.json"), "{\"run_id\": \"t\", \"data\": {\"texts\": 3}}");
    assertThat(AnswerJob.syntheticTokens(dir)).isNull();
    Files.writeString(dir.resolve("train_info.json"), "{\"synthetic_tokens\": 42000000000}");
    assertThat(AnswerJob.syntheticTokens(dir)).isEqualTo(42_000_000_000L);
    Files.writeString(dir.resolve("train_info.json"), "{\"data\": {\"synthetic_tokens\": 7}}");
    assertThat(AnswerJob.syntheticTokens(dir)).isEqualTo(7L);
  }

  @Test
  void runsThatShareTheModelFreeReaderAreAnsweredInOnePassAsEachWouldBeAlone() {
    Supplier<ConfigLoader> base =
        () ->
            JobCatalog.configLoader()
                .setString("warehouse", warehouse)
                .setString("answer.benchmark", "quality");
    Consumer<ConfigLoader> closedBook = loader -> loader.set("answer.max_questions=4");
    // The third question has no retrievals: a dead letter in the pass too (from dense, which no
    // other test answers with, so that the record is first quarantined here).
    Consumer<ConfigLoader> rag =
        loader ->
            loader
                .setString("answer.setting", "rag")
                .setString("answer.retriever", "dense")
                .set("answer.k=1")
                .set("answer.max_questions=3");
    assertThat(sharedModel(base, closedBook))
        .startsWith("embedding ")
        .isEqualTo(sharedModel(base, rag));
    PrintWriter aloneOut = new PrintWriter(new StringWriter(), true);
    RecordedSteps alone = new RecordedSteps(SPARK, base, 2, aloneOut, aloneOut);
    List<String> aloneRuns =
        List.of(
            alone.run("closed book alone", AnswerJob.NAME, r -> new AnswerJob(r).run(), closedBook),
            alone.run("rag alone", AnswerJob.NAME, r -> new AnswerJob(r).run(), rag));

    StringWriter printed = new StringWriter();
    PrintWriter out = new PrintWriter(printed, true);
    RecordedSteps together = new RecordedSteps(SPARK, base, 2, out, out);
    List<String> passRuns =
        together.runTogether(
            List.of(
                new RecordedSteps.Step(
                    "closed book in the pass",
                    AnswerJob.NAME,
                    r -> new AnswerJob(r).run(),
                    closedBook),
                new RecordedSteps.Step(
                    "rag in the pass", AnswerJob.NAME, r -> new AnswerJob(r).run(), rag)),
            AnswerBatch::run);

    assertThat(printed.toString())
        .containsSubsequence(
            "== 1/2 closed book in the pass",
            "4 answered, 0 quarantined",
            "answered in one Spark pass with 1 other run(s) that share embedding",
            "run_id " + passRuns.get(0),
            "== 2/2 rag in the pass",
            "3 question(s): 2 answered, 1 quarantined",
            "answered in one Spark pass with 1 other run(s)",
            "run_id " + passRuns.get(1));
    Warehouse w = new Warehouse(SPARK, warehouse);
    for (int i = 0; i < 2; i++) {
      List<String> soloRows = predictionRowsWithoutRunId(w, aloneRuns.get(i));
      assertThat(soloRows).hasSize(i == 0 ? 4 : 2);
      assertThat(predictionRowsWithoutRunId(w, passRuns.get(i)))
          .as("the pass writes what the run writes alone")
          .containsExactlyElementsOf(soloRows);
      Row solo = w.read("runs").filter("run_id = '" + aloneRuns.get(i) + "'").head();
      Row inPass = w.read("runs").filter("run_id = '" + passRuns.get(i) + "'").head();
      assertThat(inPass.<String>getAs("status")).isEqualTo("succeeded");
      for (String count : List.of("input_count", "output_count", "quarantined_count")) {
        assertThat(inPass.<Long>getAs(count)).as(count).isEqualTo(solo.<Long>getAs(count));
      }
      Map<String, Long> soloDetails =
          new java.util.TreeMap<>(solo.getJavaMap(solo.fieldIndex("counts")));
      Map<String, Long> passDetails =
          new java.util.TreeMap<>(inPass.getJavaMap(inPass.fieldIndex("counts")));
      // A dead letter quarantined before keeps its first run: the pass's rag run inserts none.
      assertThat(passDetails.remove("quarantine.inserted")).isZero();
      soloDetails.remove("quarantine.inserted");
      assertThat(passDetails).isEqualTo(soloDetails);
    }
  }

  @Test
  void aFailedPassRecordsEveryOneOfItsRunsFailed() {
    Supplier<ConfigLoader> base = () -> JobCatalog.configLoader().setString("warehouse", warehouse);
    StringWriter printed = new StringWriter();
    PrintWriter out = new PrintWriter(printed, true);
    RecordedSteps steps = new RecordedSteps(SPARK, base, 2, out, out);
    RecordedSteps.Step step =
        new RecordedSteps.Step("a step", AnswerJob.NAME, r -> new AnswerJob(r).run(), loader -> {});
    List<String> seen = new ArrayList<>();
    assertThatThrownBy(
            () ->
                steps.runTogether(
                    List.of(step, step),
                    runs -> {
                      runs.forEach(r -> seen.add(r.runId()));
                      throw new IllegalStateException("the pass broke");
                    }))
        .isInstanceOf(StepFailedException.class);
    assertThat(seen).hasSize(2).doesNotHaveDuplicates();
    List<Row> recorded =
        new Warehouse(SPARK, warehouse)
            .read("runs")
            .filter(org.apache.spark.sql.functions.col("run_id").isin(seen.toArray()))
            .collectAsList();
    assertThat(recorded)
        .hasSize(2)
        .allSatisfy(
            r -> {
              assertThat(r.<String>getAs("status")).isEqualTo("failed");
              assertThat(r.<String>getAs("error")).contains("the pass broke");
            });
    assertThat(printed.toString()).contains("== 1/2 a step").contains("the pass broke");
  }

  /** A run's predictions as text without the run id, ordered by question. */
  private static List<String> predictionRowsWithoutRunId(Warehouse w, String runId) {
    return w
        .read("predictions")
        .filter("run_id = '" + runId + "'")
        .drop("run_id")
        .orderBy("question_id")
        .collectAsList()
        .stream()
        .map(Row::toString)
        .toList();
  }

  private static String sharedModel(Supplier<ConfigLoader> base, Consumer<ConfigLoader> step) {
    ConfigLoader loader = base.get();
    step.accept(loader);
    return AnswerBatch.sharedModel(loader.load(), SPARK);
  }

  private static List<Row> predictionsOf(CliResult result) {
    return new Warehouse(SPARK, warehouse)
        .read("predictions")
        .filter("run_id = '" + runId(result) + "'")
        .orderBy("question_id")
        .collectAsList();
  }

  private static String runId(CliResult result) {
    return result
        .out()
        .lines()
        .filter(l -> l.contains("run_id "))
        .reduce((a, b) -> b)
        .orElseThrow()
        .replaceFirst(".*run_id ", "")
        .trim();
  }

  private static Map<String, String> gold() {
    return new Warehouse(SPARK, warehouse)
        .read("questions").select("question_id", "gold").collectAsList().stream()
            .collect(Collectors.toMap(r -> r.getString(0), r -> r.getString(1)));
  }

  /** bm25's chunks per question, best first. */
  private static Map<String, List<String>> bm25ChunksByRank() {
    return new Warehouse(SPARK, warehouse)
        .read("retrievals").filter("retriever = 'bm25'").orderBy("rank").collectAsList().stream()
            .collect(
                Collectors.groupingBy(
                    r -> r.getAs("question_id"),
                    Collectors.mapping(r -> r.getAs("chunk_id"), Collectors.toList())));
  }

  private static String jsonEscaped(String text) {
    return new com.fasterxml.jackson.databind.node.TextNode(text)
        .toString()
        .replaceAll("^\"|\"$", "");
  }
}
