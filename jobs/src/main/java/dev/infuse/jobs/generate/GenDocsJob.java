package dev.infuse.jobs.generate;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sort_array;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.sum;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import dev.infuse.jobs.spark.SparkRows;
import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.generate.EntityListParser;
import dev.infuse.udfs.generate.GenerationTask;
import dev.infuse.udfs.generate.ParseResult;
import dev.infuse.udfs.generate.TextOutputParser;
import dev.infuse.udfs.text.Tokenizers;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code gen-docs}: synthetic documents from source documents, of three kinds:
 *
 * <ul>
 *   <li>{@code rephrase}: WRAP-like style rewrites (simple, encyclopedic, terse, Q/A dialogue);
 *   <li>{@code entity}: EntiGraph-like: entities are extracted per document first (one call each),
 *       then documents are written per entity, per pair and per triple; {@code entity_recipe:
 *       capped} caps and samples them with seeds, {@code entigraph} follows EntiGraph: a summary
 *       (itself a document), every entity, every pair and seeded triples;
 *   <li>{@code focal}: Focal Rewriting: the source rewritten to explain what given questions (from
 *       {@code synthetic_qa}) ask about; their ids are stored as conditioning ids.
 * </ul>
 *
 * Every call goes through the cached, resumable LLM layer; unusable outputs go to quarantine. With
 * {@code gen_docs.target_tokens} the calls go in waves, each wave's documents are written as it
 * ends, and the run stops once synthetic_docs holds that many unique tokens for its sources, kinds
 * and generator; every source's first request comes before any source's second.
 */
public final class GenDocsJob {
  public static final String NAME = "gen-docs";

  /** The entity variant of the entigraph recipe's summaries. */
  static final String SUMMARY = "summary";

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One request per row: the source, what kind and variant it is, and what it is conditioned on.
   */
  static final StructType REQUESTS =
      new StructType()
          .add("unit_id", DataTypes.StringType, false)
          .add("doc_id", DataTypes.StringType, false)
          .add("kind", DataTypes.StringType, false)
          .add("variant", DataTypes.StringType, false)
          .add("conditioning_ids", DataTypes.createArrayType(DataTypes.StringType), false)
          .add("template_id", DataTypes.StringType, false)
          .add("template_version", DataTypes.IntegerType, false)
          .add("seed", DataTypes.LongType, false)
          .add("call_key", DataTypes.StringType, false)
          .add("chat_request", DataTypes.StringType, false)
          .add("canonical_request", DataTypes.StringType, false)
          .add(LlmCallRunner.ORDER_COLUMN, DataTypes.LongType, false);

  private final JobRun run;
  private final GenDocsConfig options;
  private final PromptLibrary prompts;

  public GenDocsJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(GenDocsConfig.class);
    this.prompts =
        PromptLibrary.load(
            run.spark().sparkContext().hadoopConfiguration(), run.config().run().promptsDir());
  }

  public RunCounts run() {
    Warehouse warehouse = run.warehouse();
    Dataset<Row> sources = sources(warehouse).persist(StorageLevel.MEMORY_AND_DISK());
    LlmCallRunner runner = new LlmCallRunner(run);
    Map<String, Long> details = new LinkedHashMap<>();
    List<Dataset<Row>> requestSets = new ArrayList<>();
    if (options.kinds().contains(GenDocsConfig.Kind.REPHRASE)) {
      requestSets.add(rephraseRequests(sources));
    }
    if (options.kinds().contains(GenDocsConfig.Kind.FOCAL)) {
      requestSets.add(focalRequests(sources, warehouse));
    }
    if (options.kinds().contains(GenDocsConfig.Kind.ENTITY)) {
      boolean entigraph = options.entityRecipe() == GenDocsConfig.EntityRecipe.ENTIGRAPH;
      EntityLists lists = entityLists(sources, runner, details, entigraph);
      if (entigraph) {
        // The summary comes from the entity-list call itself: the same key, already answered.
        requestSets.add(
            lists
                .requests()
                .withColumn("unit_id", concat(col("doc_id"), lit("#entity/summary")))
                .withColumn("kind", lit("entity"))
                .withColumn("variant", lit(SUMMARY)));
      }
      requestSets.add(entityRequests(sources, lists.lists(), entigraph));
    }
    Dataset<Row> requests =
        requestSets.stream()
            .reduce(Dataset::unionByName)
            .orElseThrow()
            .persist(StorageLevel.MEMORY_AND_DISK());
    Written written = new Written();
    LlmCallRunner.Outcome outcome;
    if (options.targetTokens() == 0) {
      outcome = runner.call(requests);
      written.add(write(runner.responses(requests).filter(col("status").isNotNull())));
    } else {
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
                      write(runner.responses(requests).filter(col("status").equalTo("succeeded"))));
                  return uniqueTokens(sources);
                }

                @Override
                public long afterWave(Dataset<Row> waveCalls) {
                  written.add(
                      write(
                          requests.join(
                              waveCalls.select("call_key", "status", "response_text", "error"),
                              "call_key")));
                  return uniqueTokens(sources);
                }
              });
    }
    written.byKind.forEach((kind, n) -> details.put("synthetic_docs." + kind, n));
    LlmCallRunner.details(outcome).forEach((k, v) -> details.merge(k, v, Long::sum));
    details.put("synthetic_docs.inserted", written.inserted);
    run.out()
        .printf(
            Locale.ROOT,
            "gen-docs: %d source document(s), kinds %s: %d document(s) written, %d quarantined %s%n",
            sources.count(),
            options.kinds(),
            written.written,
            written.read - written.written,
            details.entrySet().stream()
                .filter(
                    e ->
                        e.getKey().startsWith("synthetic_docs.")
                            && !e.getKey().endsWith("inserted"))
                .toList());
    GenerationCounts.print(run, outcome);
    if (options.targetTokens() > 0) {
      details.put("target.tokens", outcome.goalProgress());
      details.put("target.goal", options.targetTokens());
      TargetLine.print(
          run,
          "synthetic_docs",
          outcome,
          options.targetTokens(),
          "raise entigraph_triples, rephrases_per_style, focal_per_doc or max_docs");
    }
    run.out().printf(Locale.ROOT, "  synthetic_docs: +%d inserted%n", written.inserted);
    requests.unpersist();
    sources.unpersist();
    return LlmFailures.check(
        NAME,
        "LLM calls",
        outcome,
        run.config().section(LlmConfig.class).maxFailureFraction(),
        new RunCounts(written.read, written.written, written.read - written.written, details));
  }

  /** What the writes of one run added up to. */
  private static final class Written {
    long read;
    long written;
    long inserted;
    final Map<String, Long> byKind = new java.util.TreeMap<>();

    void add(Written other) {
      read += other.read;
      written += other.written;
      inserted += other.inserted;
      other.byKind.forEach((k, v) -> byKind.merge(k, v, Long::sum));
    }
  }

  /**
   * Parses answered requests (request columns plus status, response_text and error) into
   * synthetic_docs rows, upserts them and quarantines what cannot be used.
   */
  private Written write(Dataset<Row> answered) {
    Dataset<Row> parsed =
        run.spark()
            .createDataFrame(
                answered.javaRDD().mapPartitions(new ParseDoc(generator())), ParseDoc.SCHEMA)
            .persist(StorageLevel.MEMORY_AND_DISK());
    Contract contract = Contracts.load("synthetic_docs");
    Dataset<Row> documents =
        parsed
            .filter(col("sdoc_id").isNotNull())
            .select(contract.columnNames().stream().map(c -> col(c)).toArray(Column[]::new));
    Dataset<Row> rejected =
        Quarantine.deadLetters(
            parsed.filter(col("sdoc_id").isNull()),
            lit("llm_calls"),
            col("location"),
            col("payload"),
            col("reason"));
    Written out = new Written();
    out.read = parsed.count();
    out.written = documents.count();
    for (Row row : documents.groupBy("kind").count().collectAsList()) {
      out.byKind.put(row.getString(0), row.getLong(1));
    }
    WriteResult write = run.warehouse().upsert(contract, documents);
    out.inserted = write.inserted();
    run.quarantine(rejected);
    parsed.unpersist();
    return out;
  }

  /**
   * The unique synthetic tokens this run's target counts: {@code n_tokens} summed over the distinct
   * texts of synthetic_docs rows from this run's sources, kinds and generator.
   */
  private long uniqueTokens(Dataset<Row> sources) {
    if (!run.warehouse().exists("synthetic_docs")) {
      return 0;
    }
    Row total =
        run.warehouse()
            .read("synthetic_docs")
            .filter(col("generator").equalTo(generator()))
            .filter(col("kind").isin(options.kinds().stream().map(k -> k.id()).toArray()))
            .join(sources.select("doc_id"), "doc_id", "left_semi")
            .dropDuplicates("text")
            .agg(coalesce(sum("n_tokens"), lit(0L)))
            .head();
    return ((Number) total.get(0)).longValue();
  }

  private String generator() {
    LlmConfig llm = run.config().section(LlmConfig.class);
    return llm.client().backend() + ":" + llm.client().model();
  }

  /** {@code (doc_id, text, title)} in a stable order, capped by {@code gen_docs.max_docs}. */
  private Dataset<Row> sources(Warehouse warehouse) {
    Dataset<Row> documents = warehouse.read("documents");
    if (options.corpus() != null) {
      documents = documents.filter(col("corpus").equalTo(options.corpus()));
    }
    documents = documents.select("doc_id", "text", "title").orderBy("doc_id");
    return options.maxDocs() > 0 ? documents.limit(options.maxDocs()) : documents;
  }

  private Dataset<Row> rephraseRequests(Dataset<Row> sources) {
    List<Dataset<Row>> perStyle = new ArrayList<>();
    int styles = options.rephraseStyles().size();
    for (int styleIndex = 0; styleIndex < styles; styleIndex++) {
      String style = options.rephraseStyles().get(styleIndex);
      int firstOrder = styleIndex;
      RequestBuilder builder =
          new RequestBuilder(
              run.config(), prompts.get(GenerationTask.promptId(GenerationTask.REPHRASE, style)));
      int samples = options.rephrasesPerStyle();
      perStyle.add(
          run.spark()
              .createDataFrame(
                  sources
                      .javaRDD()
                      .flatMap(
                          doc -> {
                            List<Row> rows = new ArrayList<>();
                            for (int i = 0; i < samples; i++) {
                              String unit = doc.getString(0) + "#rephrase/" + style + "/" + i;
                              rows.add(
                                  request(
                                      builder,
                                      unit,
                                      doc.getString(0),
                                      "rephrase",
                                      style,
                                      List.of(),
                                      GenerationTask.REPHRASE,
                                      vars(doc, Map.of(GenerationTask.STYLE, style)),
                                      (long) i * styles + firstOrder));
                            }
                            return rows.iterator();
                          }),
                  REQUESTS));
    }
    return perStyle.stream().reduce(Dataset::unionByName).orElseThrow();
  }

  /**
   * Focal rewrites: each source's synthetic questions (by qa_id order) are dealt into groups of
   * {@code questions_per_focal}, and up to {@code focal_per_doc} groups, chosen by a seeded
   * shuffle, each condition one rewrite.
   */
  private Dataset<Row> focalRequests(Dataset<Row> sources, Warehouse warehouse) {
    if (!warehouse.exists("synthetic_qa")) {
      run.err()
          .println(
              "[gen-docs] no synthetic_qa table: run gen-qa first for focal documents; skipping focal");
      return run.spark().createDataFrame(List.of(), REQUESTS);
    }
    Dataset<Row> questions =
        warehouse
            .read("synthetic_qa")
            .groupBy("doc_id")
            .agg(sort_array(collect_list(struct(col("qa_id"), col("question")))).as("qs"));
    Dataset<Row> joined = sources.join(questions, "doc_id").select("doc_id", "text", "title", "qs");
    RequestBuilder builder =
        new RequestBuilder(
            run.config(), prompts.get(GenerationTask.promptId(GenerationTask.FOCAL, null)));
    int perFocal = options.questionsPerFocal();
    int perDoc = options.focalPerDoc();
    long runSeed = run.config().run().seed();
    return run.spark()
        .createDataFrame(
            joined
                .javaRDD()
                .flatMap(
                    doc -> {
                      List<Row> qs = doc.getList(3);
                      List<List<Row>> groups = new ArrayList<>();
                      for (int i = 0; i + perFocal <= qs.size(); i += perFocal) {
                        groups.add(qs.subList(i, i + perFocal));
                      }
                      shuffle(
                          groups,
                          RequestBuilder.seedFor(runSeed, doc.getString(0), "focal-groups"));
                      List<Row> rows = new ArrayList<>();
                      long order = 0;
                      for (List<Row> group : groups.subList(0, Math.min(perDoc, groups.size()))) {
                        List<String> ids = group.stream().map(q -> q.getString(0)).toList();
                        List<String> texts = group.stream().map(q -> q.getString(1)).toList();
                        String unit = doc.getString(0) + "#focal/" + String.join(",", ids);
                        rows.add(
                            request(
                                builder,
                                unit,
                                doc.getString(0),
                                "focal",
                                "questions",
                                ids,
                                GenerationTask.FOCAL,
                                vars(doc, Map.of(GenerationTask.QUESTIONS, json(texts))),
                                order++));
                      }
                      return rows.iterator();
                    }),
            REQUESTS);
  }

  /** The entity lists {@code (doc_id, entities)}, and the requests that made them. */
  private record EntityLists(Dataset<Row> lists, Dataset<Row> requests) {}

  /**
   * First stage of entity documents: one call per source lists its entities (capped: up to {@code
   * max_entities}; entigraph: a summary and as many as possible, cut to {@code
   * entigraph_max_entities} when set).
   */
  private EntityLists entityLists(
      Dataset<Row> sources, LlmCallRunner runner, Map<String, Long> details, boolean entigraph) {
    String task = entigraph ? GenerationTask.SUMMARY_ENTITIES : GenerationTask.ENTITIES;
    RequestBuilder builder =
        new RequestBuilder(run.config(), prompts.get(GenerationTask.promptId(task, null)));
    Map<String, String> extra =
        entigraph
            ? Map.of()
            : Map.of(GenerationTask.MAX_ENTITIES, Integer.toString(options.maxEntities()));
    String unitSuffix = entigraph ? "#entigraph" : "#entities";
    Dataset<Row> requests =
        run.spark()
            .createDataFrame(
                sources
                    .javaRDD()
                    .map(
                        doc ->
                            request(
                                builder,
                                doc.getString(0) + unitSuffix,
                                doc.getString(0),
                                "entities",
                                "list",
                                List.of(),
                                task,
                                vars(doc, extra),
                                0L)),
                REQUESTS)
            .persist(StorageLevel.MEMORY_AND_DISK());
    LlmCallRunner.Outcome outcome = runner.call(requests);
    LlmCallRunner.details(outcome).forEach((k, v) -> details.merge(k, v, Long::sum));
    int cap = entigraph ? options.entigraphMaxEntities() : 0;
    Dataset<Row> lists =
        run.spark()
            .createDataFrame(
                runner
                    .responses(requests)
                    .filter(col("status").equalTo("succeeded"))
                    .javaRDD()
                    .map(
                        r -> {
                          List<String> names =
                              EntityListParser.parse(r.getAs("response_text")).values();
                          if (cap > 0 && names.size() > cap) {
                            names = names.subList(0, cap);
                          }
                          return RowFactory.create(
                              (String) r.getAs("doc_id"), SparkRows.seq(names));
                        }),
                new StructType()
                    .add("doc_id", DataTypes.StringType, false)
                    .add("entities", DataTypes.createArrayType(DataTypes.StringType), false))
            .persist(StorageLevel.MEMORY_AND_DISK());
    details.put("entities.lists", lists.count());
    return new EntityLists(lists, requests);
  }

  /**
   * Second stage: per source, the entity groups of the recipe (capped: the top entities alone, then
   * seeded samples of pairs and triples; entigraph: {@link EntityGroups#entigraph}), one request
   * each.
   */
  private Dataset<Row> entityRequests(
      Dataset<Row> sources, Dataset<Row> entityLists, boolean entigraph) {
    List<RequestBuilder> builders = new ArrayList<>();
    if (entigraph) {
      for (String id : GenerationTask.ENTIGRAPH_DOC_PROMPTS) {
        builders.add(new RequestBuilder(run.config(), prompts.get(id)));
      }
    } else {
      RequestBuilder builder =
          new RequestBuilder(
              run.config(), prompts.get(GenerationTask.promptId(GenerationTask.ENTITY_DOC, null)));
      builders.addAll(List.of(builder, builder, builder));
    }
    int singles = options.entitySingles();
    int pairs = options.entityPairs();
    int triples = options.entityTriples();
    int entigraphTriples = options.entigraphTriples();
    long runSeed = run.config().run().seed();
    Dataset<Row> joined =
        sources.join(entityLists, "doc_id").select("doc_id", "text", "title", "entities");
    return run.spark()
        .createDataFrame(
            joined
                .javaRDD()
                .flatMap(
                    doc -> {
                      List<String> entities = doc.getList(3);
                      long seed =
                          RequestBuilder.seedFor(runSeed, doc.getString(0), "entity-groups");
                      List<List<String>> groups =
                          entigraph
                              ? EntityGroups.entigraph(entities, entigraphTriples, seed)
                              : EntityGroups.choose(entities, singles, pairs, triples, seed);
                      List<Row> rows = new ArrayList<>();
                      // The summary (entigraph) is each source's first document.
                      long order = entigraph ? 1 : 0;
                      for (List<String> group : groups) {
                        String variant =
                            group.size() == 1 ? "single" : group.size() == 2 ? "pair" : "triple";
                        String unit = doc.getString(0) + "#entity/" + String.join("|", group);
                        rows.add(
                            request(
                                builders.get(group.size() - 1),
                                unit,
                                doc.getString(0),
                                "entity",
                                variant,
                                group,
                                GenerationTask.ENTITY_DOC,
                                vars(doc, Map.of(GenerationTask.ENTITIES_VAR, json(group))),
                                order++));
                      }
                      return rows.iterator();
                    }),
            REQUESTS);
  }

  private static Row request(
      RequestBuilder builder,
      String unit,
      String docId,
      String kind,
      String variant,
      List<String> conditioning,
      String task,
      Map<String, String> vars,
      long order) {
    RequestBuilder.Built built = builder.build(unit, task, vars);
    return RowFactory.create(
        unit,
        docId,
        kind,
        variant,
        SparkRows.seq(conditioning),
        builder.template().id(),
        builder.template().version(),
        built.seed(),
        built.callKey(),
        built.chatRequestJson(),
        built.canonicalRequest(),
        order);
  }

  private static Map<String, String> vars(Row doc, Map<String, String> extra) {
    Map<String, String> vars = new LinkedHashMap<>(extra);
    vars.put(GenerationTask.DOCUMENT, doc.getString(1));
    vars.put(GenerationTask.TITLE, doc.isNullAt(2) ? "" : doc.getString(2));
    return vars;
  }

  private static String json(List<String> values) {
    try {
      return JSON.writeValueAsString(values);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static <T> void shuffle(List<T> list, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = list.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      T swap = list.get(i);
      list.set(i, list.get(j));
      list.set(j, swap);
    }
  }

  /**
   * Turns responses into synthetic_docs rows, or rejection rows keeping the raw text and the
   * reason.
   */
  static final class ParseDoc extends ResponseParser {
    private static final long serialVersionUID = 1L;
    static final StructType SCHEMA =
        Responses.withOutputTail(
            new StructType()
                .add("sdoc_id", DataTypes.StringType, true)
                .add("doc_id", DataTypes.StringType, false)
                .add("kind", DataTypes.StringType, false)
                .add("variant", DataTypes.StringType, false)
                .add("conditioning_ids", DataTypes.createArrayType(DataTypes.StringType), false)
                .add("text", DataTypes.StringType, true)
                .add("n_tokens", DataTypes.IntegerType, true));

    private final String generator;

    ParseDoc(String generator) {
      this.generator = generator;
    }

    @Override
    void parse(Row r, String text, String location, List<Row> rows) {
      ParseResult<String> result =
          SUMMARY.equals(r.getAs("variant"))
              ? EntityListParser.summary(text)
              : TextOutputParser.parse(text);
      if (!result.ok()) {
        rows.add(
            reject(
                r, location, text, "gen-docs " + r.getAs("kind") + " output: " + result.reason()));
        return;
      }
      String document = result.values().get(0);
      List<String> conditioning = r.getList(r.fieldIndex("conditioning_ids"));
      String sdocId =
          Keys.shortHash(
              r.getAs("doc_id"),
              r.getAs("kind"),
              r.getAs("variant"),
              String.join(",", conditioning),
              generator,
              r.getAs("template_id") + "@" + r.<Integer>getAs("template_version"),
              Long.toString(r.getAs("seed")),
              r.getAs("unit_id"));
      rows.add(
          row(
              r,
              sdocId,
              document,
              Tokenizers.defaultTokenizer().count(document),
              location,
              null,
              null));
    }

    @Override
    Row reject(Row r, String location, String payload, String reason) {
      return row(r, null, null, null, location, payload, reason);
    }

    /** A synthetic_docs row, or with a null sdoc_id a rejection; both keep their provenance. */
    private Row row(
        Row r,
        String sdocId,
        String text,
        Integer tokens,
        String location,
        String payload,
        String reason) {
      return RowFactory.create(
          sdocId,
          r.getAs("doc_id"),
          r.getAs("kind"),
          r.getAs("variant"),
          SparkRows.seq(r.getList(r.fieldIndex("conditioning_ids"))),
          text,
          tokens,
          generator,
          r.getAs("template_id"),
          r.<Integer>getAs("template_version"),
          r.<Long>getAs("seed"),
          r.getAs("call_key"),
          location,
          payload,
          reason);
    }
  }
}
