package dev.infuse.jobs.generate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

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
import dev.infuse.udfs.prompt.PromptTemplate;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code gen-qa}: synthetic question-answer pairs per chunk or per document, through the LLM client
 * layer (cached, resumable). Each response is parsed and validated; a response that yields no valid
 * pair, and a call that failed for good, go to quarantine with the raw text and the reason.
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
          .add("canonical_request", DataTypes.StringType, false);

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
                              built.canonicalRequest());
                        }),
                REQUESTS)
            .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      LlmCallRunner runner = new LlmCallRunner(run);
      LlmCallRunner.Outcome outcome = runner.call(requests);
      Dataset<Row> answered =
          runner
              .responses(requests)
              .filter(col("status").isNotNull())
              .persist(StorageLevel.MEMORY_AND_DISK());
      Dataset<Row> parsed =
          run.spark()
              .createDataFrame(
                  answered
                      .javaRDD()
                      .mapPartitions(
                          new ParseQa(builder.generator(), template.id(), template.version())),
                  ParseQa.SCHEMA)
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
      long unitsRead = answered.count();
      long unitsWithPairs =
          parsed.filter(col("kind").equalTo("qa")).select("unit_id").distinct().count();
      long unitsRejected = unitsRead - unitsWithPairs;
      long itemsRejected = rejected.count();
      WriteResult write = warehouse.upsert(contract, qa);
      run.quarantine(rejected);
      long pairsWritten = qa.count();
      answered.unpersist();
      parsed.unpersist();

      Map<String, Long> details = LlmCallRunner.details(outcome);
      details.put("synthetic_qa.pairs", pairsWritten);
      details.put("synthetic_qa.inserted", write.inserted());
      details.put("quarantine.records", itemsRejected);
      run.out()
          .printf(
              Locale.ROOT,
              "gen-qa: %d unit(s) (%s), %d answered: %d pair(s) from %d unit(s), %d unit(s) quarantined%n",
              requests.count(),
              options.unit(),
              unitsRead,
              pairsWritten,
              unitsWithPairs,
              unitsRejected);
      GenerationCounts.print(run, outcome);
      run.out().println("  " + write);
      return LlmFailures.check(
          NAME,
          "LLM calls",
          outcome,
          run.config().section(LlmConfig.class).maxFailureFraction(),
          new RunCounts(unitsRead, unitsWithPairs, unitsRejected, details));
    } finally {
      requests.unpersist();
    }
  }

  /**
   * {@code (unit_id, doc_id, chunk_id, text, title)}, in a stable order, capped by {@code
   * gen_qa.max_units}.
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
    return options.maxUnits() > 0 ? units.limit(options.maxUnits()) : units;
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
