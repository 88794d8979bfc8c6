package dev.infuse.jobs.generate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;

import dev.infuse.jobs.chunk.RagConfig;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.llm.LlmCallRunner;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.llm.LlmFailures;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.generate.GenerationTask;
import dev.infuse.udfs.generate.ParseResult;
import dev.infuse.udfs.generate.QaPair;
import dev.infuse.udfs.generate.QaPairsParser;
import dev.infuse.udfs.mix.QaTemplate;
import dev.infuse.udfs.prompt.PromptTemplate;
import dev.infuse.udfs.text.Tokenizers;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code gen-qa}: synthetic question-answer pairs per chunk or per document, through the LLM client
 * layer (cached, resumable). Each response is parsed and validated; a response that yields no valid
 * pair, and a call that failed for good, go to quarantine with the raw text and the reason. With
 * {@code gen_qa.target_tokens} the calls go in waves (every document's first unit before any
 * document's second), each wave's pairs are written as it ends, and the run stops once synthetic_qa
 * holds that many unique tokens for its documents and generator.
 */
public final class GenQaJob {
  public static final String NAME = "gen-qa";
  public static final String TEMPLATE = GenerationTask.promptId(GenerationTask.QA, null);

  static final StructType REQUESTS =
      new StructType()
          .add("unit_id", DataTypes.StringType, false)
          .add("doc_id", DataTypes.StringType, false)
          .add("chunk_id", DataTypes.StringType, true)
          .add("seed", DataTypes.LongType, false)
          .add("call_key", DataTypes.StringType, false)
          .add("chat_request", DataTypes.StringType, false)
          .add("canonical_request", DataTypes.StringType, false)
          .add(LlmCallRunner.ORDER_COLUMN, DataTypes.LongType, false);

  private final JobRun run;
  private final GenQaConfig options;

  public GenQaJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(GenQaConfig.class);
  }

  public RunCounts run() {
    Warehouse warehouse = run.warehouse();
    PromptTemplate template =
        PromptLibrary.load(
                run.spark().sparkContext().hadoopConfiguration(), run.config().run().promptsDir())
            .get(TEMPLATE);
    RequestBuilder builder = new RequestBuilder(run.config(), template);
    Dataset<Row> units = units(warehouse);
    int pairs = options.pairsPerUnit();
    Dataset<Row> requests =
        run.spark()
            .createDataFrame(
                units
                    .javaRDD()
                    .map(
                        unit -> {
                          RequestBuilder.Built built =
                              builder.build(
                                  unit.getString(0),
                                  GenerationTask.QA,
                                  Map.of(
                                      GenerationTask.DOCUMENT, unit.getString(3),
                                      GenerationTask.TITLE,
                                          unit.isNullAt(4) ? "" : unit.getString(4),
                                      GenerationTask.N, Integer.toString(pairs)));
                          return RowFactory.create(
                              unit.getString(0),
                              unit.getString(1),
                              unit.isNullAt(2) ? null : unit.getString(2),
                              built.seed(),
                              built.callKey(),
                              built.chatRequestJson(),
                              built.canonicalRequest(),
                              unit.getLong(5));
                        }),
                REQUESTS)
            .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      LlmCallRunner runner = new LlmCallRunner(run);
      ParseQa parser = new ParseQa(builder.generator(), template.id(), template.version());
      Written written = new Written();
      LlmCallRunner.Outcome outcome;
      if (options.targetTokens() == 0) {
        outcome = runner.call(requests);
        written.add(write(runner.responses(requests).filter(col("status").isNotNull()), parser));
      } else {
        Dataset<Row> docIds = units.select("doc_id").distinct();
        outcome =
            runner.call(
                requests,
                new LlmCallRunner.Goal() {
                  @Override
                  public long target() {
                    return options.targetTokens();
                  }

                  @Override
                  public long initial() {
                    written.add(
                        write(
                            runner.responses(requests).filter(col("status").equalTo("succeeded")),
                            parser));
                    return uniqueTokens(docIds, builder.generator());
                  }

                  @Override
                  public long afterWave(Dataset<Row> waveCalls) {
                    written.add(
                        write(
                            requests.join(
                                waveCalls.select("call_key", "status", "response_text", "error"),
                                "call_key"),
                            parser));
                    return uniqueTokens(docIds, builder.generator());
                  }
                });
      }
      long unitsRejected = written.unitsRead - written.unitsWithPairs;
      Map<String, Long> details = LlmCallRunner.details(outcome);
      details.put("synthetic_qa.pairs", written.pairs);
      details.put("synthetic_qa.inserted", written.inserted);
      details.put("quarantine.records", written.itemsRejected);
      run.out()
          .printf(
              Locale.ROOT,
              "gen-qa: %d unit(s) (%s), %d answered: %d pair(s) from %d unit(s), %d unit(s) quarantined%n",
              requests.count(),
              options.unit(),
              written.unitsRead,
              written.pairs,
              written.unitsWithPairs,
              unitsRejected);
      GenerationCounts.print(run, outcome);
      if (options.targetTokens() > 0) {
        details.put("target.tokens", outcome.goalProgress());
        details.put("target.goal", options.targetTokens());
        TargetLine.print(
            run,
            "synthetic_qa",
            outcome,
            options.targetTokens(),
            "raise gen_qa.pairs_per_unit or max_units");
      }
      run.out().printf(Locale.ROOT, "  synthetic_qa: +%d inserted%n", written.inserted);
      return LlmFailures.check(
          NAME,
          "LLM calls",
          outcome,
          run.config().section(LlmConfig.class).maxFailureFraction(),
          new RunCounts(written.unitsRead, written.unitsWithPairs, unitsRejected, details));
    } finally {
      requests.unpersist();
    }
  }

  /** What the writes of one run added up to. */
  private static final class Written {
    long unitsRead;
    long unitsWithPairs;
    long itemsRejected;
    long pairs;
    long inserted;

    void add(Written other) {
      unitsRead += other.unitsRead;
      unitsWithPairs += other.unitsWithPairs;
      itemsRejected += other.itemsRejected;
      pairs += other.pairs;
      inserted += other.inserted;
    }
  }

  /**
   * Parses answered requests (request columns plus status, response_text and error) into
   * synthetic_qa rows, upserts them and quarantines what cannot be used.
   */
  private Written write(Dataset<Row> responses, ParseQa parser) {
    Dataset<Row> answered = responses.persist(StorageLevel.MEMORY_AND_DISK());
    Dataset<Row> parsed =
        run.spark()
            .createDataFrame(answered.javaRDD().mapPartitions(parser), ParseQa.SCHEMA)
            .persist(StorageLevel.MEMORY_AND_DISK());
    Contract contract = Contracts.load("synthetic_qa");
    Dataset<Row> qa =
        parsed
            .filter(col("kind").equalTo("qa"))
            .select(contract.columnNames().stream().map(c -> col(c)).toArray(Column[]::new));
    Dataset<Row> rejected =
        Quarantine.deadLetters(
            parsed.filter(col("kind").equalTo("reject")),
            lit("llm_calls"),
            col("location"),
            col("payload"),
            col("reason"));
    Written out = new Written();
    out.unitsRead = answered.count();
    out.unitsWithPairs =
        parsed.filter(col("kind").equalTo("qa")).select("unit_id").distinct().count();
    out.itemsRejected = rejected.count();
    WriteResult write = run.warehouse().upsert(contract, qa);
    run.quarantine(rejected);
    out.pairs = qa.count();
    out.inserted = write.inserted();
    answered.unpersist();
    parsed.unpersist();
    return out;
  }

  /**
   * The unique synthetic tokens this run's target counts: each distinct (question, answer) of
   * synthetic_qa rows from these documents and this generator, as training sees it ({@link
   * QaTemplate#text}), in the default tokenizer (the one synthetic_docs.n_tokens uses).
   */
  private long uniqueTokens(Dataset<Row> docIds, String generator) {
    if (!run.warehouse().exists("synthetic_qa")) {
      return 0;
    }
    return run.warehouse()
        .read("synthetic_qa")
        .filter(col("generator").equalTo(generator))
        .join(docIds, "doc_id", "left_semi")
        .select("question", "answer")
        .distinct()
        .javaRDD()
        .map(
            r ->
                (long)
                    Tokenizers.defaultTokenizer()
                        .count(QaTemplate.text(r.getString(0), r.getString(1))))
        .fold(0L, Long::sum);
  }

  /**
   * {@code (unit_id, doc_id, chunk_id, text, title, call_order)}, capped by {@code
   * gen_qa.max_units} in unit order; call_order is the unit's rank within its document.
   */
  private Dataset<Row> units(Warehouse warehouse) {
    Dataset<Row> documents = warehouse.read("documents");
    if (options.corpus() != null) {
      documents = documents.filter(col("corpus").equalTo(options.corpus()));
    }
    Dataset<Row> units =
        options.unit() == GenQaConfig.Unit.CHUNK
            ? warehouse
                .read("chunks")
                // One recipe's chunks (rag.recipe): another recipe's cut of the same text would
                // ask for the same knowledge twice, and change with every RAG recipe evaluated.
                .filter(col("rag_recipe").equalTo(run.config().section(RagConfig.class).recipe()))
                .join(documents.select(col("doc_id"), col("title")), "doc_id")
                .select(
                    col("chunk_id").as("unit_id"),
                    col("doc_id"),
                    col("chunk_id"),
                    col("text"),
                    col("title"))
            : documents.select(
                col("doc_id").as("unit_id"),
                col("doc_id"),
                lit(null).cast("string").as("chunk_id"),
                col("text"),
                col("title"));
    units = units.orderBy("unit_id");
    units = options.maxUnits() > 0 ? units.limit(options.maxUnits()) : units;
    // Call order: every document's first unit, then every document's second, and so on, so a run
    // stopped by its token target covers the documents evenly.
    return units.withColumn(
        LlmCallRunner.ORDER_COLUMN,
        row_number().over(Window.partitionBy("doc_id").orderBy("unit_id")).minus(1).cast("long"));
  }

  /** Parses responses into QA rows, or rejection rows that keep the raw text and the reason. */
  static final class ParseQa extends ResponseParser {
    private static final long serialVersionUID = 1L;
    static final StructType SCHEMA =
        Responses.withOutputTail(
            new StructType()
                .add("kind", DataTypes.StringType, false)
                .add("unit_id", DataTypes.StringType, false)
                .add("qa_id", DataTypes.StringType, true)
                .add("doc_id", DataTypes.StringType, true)
                .add("chunk_id", DataTypes.StringType, true)
                .add("question", DataTypes.StringType, true)
                .add("answer", DataTypes.StringType, true));

    private final String generator;
    private final String templateId;
    private final int templateVersion;

    ParseQa(String generator, String templateId, int templateVersion) {
      this.generator = generator;
      this.templateId = templateId;
      this.templateVersion = templateVersion;
    }

    @Override
    void parse(Row r, String text, String location, List<Row> rows) {
      String unit = r.getAs("unit_id");
      ParseResult<QaPair> result = QaPairsParser.parse(text);
      for (String problem : result.problems()) {
        rows.add(reject(r, location, text, "gen-qa output: " + problem));
      }
      long seed = r.getAs("seed");
      int index = 0;
      for (QaPair pair : result.values()) {
        String qaId =
            Keys.shortHash(
                unit,
                generator,
                templateId + "@" + templateVersion,
                Long.toString(seed),
                Integer.toString(index++));
        rows.add(
            RowFactory.create(
                "qa",
                unit,
                qaId,
                r.getAs("doc_id"),
                r.getAs("chunk_id"),
                pair.question(),
                pair.answer(),
                generator,
                templateId,
                templateVersion,
                seed,
                r.getAs("call_key"),
                null,
                null,
                null));
      }
      if (result.values().isEmpty() && result.problems().isEmpty()) {
        rows.add(reject(r, location, text, "gen-qa output: no question-answer pairs"));
      }
    }

    @Override
    Row reject(Row r, String location, String payload, String reason) {
      return RowFactory.create(
          "reject",
          r.getAs("unit_id"),
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          location,
          payload,
          reason);
    }
  }
}
