package dev.infuse.jobs.ingest;

import static dev.infuse.jobs.ingest.Dispositions.COLLAPSED;
import static dev.infuse.jobs.ingest.Dispositions.DISPOSITION;
import static dev.infuse.jobs.ingest.Dispositions.QUARANTINED;
import static dev.infuse.jobs.ingest.Dispositions.REASON;
import static dev.infuse.jobs.ingest.Dispositions.WRITTEN;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.run.JobFailedException;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.jobs.spark.ShufflePartitions;
import dev.infuse.udfs.ingest.BenchmarkReader;
import dev.infuse.udfs.ingest.BenchmarkReaders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.SerializableConfiguration;

/**
 * {@code ingest}: reads a benchmark's files into {@code documents} and {@code questions}.
 *
 * <p>Each file is parsed whole by one task (so line numbers are exact and a multi-line CSV record
 * is never split); files are spread across the cluster. Every item ends up written, collapsed into
 * an identical row, or in {@code quarantine} with its reason, and the run's counts reconcile.
 * Writes merge on the stable keys and skip unchanged rows, so a rerun commits nothing.
 */
public final class IngestJob {
  public static final String NAME = "ingest";

  /**
   * How ingest keeps the datasets it reads several times, each as large as the input: on local disk
   * only, so that the heap never holds input-sized column buffers. A 1 GB file at a 2 GB heap had
   * 860 MB of them in the memory store when it ran out of heap (issue 19); small inputs lose
   * nothing measurable by skipping it.
   */
  private static final StorageLevel AS_LARGE_AS_INPUT = StorageLevel.DISK_ONLY();

  private final JobRun run;
  private final IngestConfig options;

  public IngestJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(IngestConfig.class);
  }

  /** The outcome of {@link #transform}: what goes to each table. */
  public record Transformed(
      Dataset<Row> documents, Dataset<Row> questions, Dataset<Row> quarantine) {}

  /**
   * Reads, writes and quarantines, then fails the run (after quarantining, so nothing is lost) when
   * it found no record or more than {@code ingest.max_bad_fraction} of them were bad.
   */
  public RunCounts run() {
    RunCounts counts = ingest();
    if (counts.input() == 0) {
      throw new JobFailedException(
          "ingest: found no records in " + options.input() + ", expected at least one", counts);
    }
    double ceiling = options.maxBadFraction();
    if (counts.badFraction() > ceiling) {
      throw new JobFailedException(
          String.format(
              Locale.ROOT,
              "ingest: %.1f%% of items were quarantined (%d of %d), above ingest.max_bad_fraction"
                  + " %s; see bin/infuse sql --warehouse %s \"SELECT location, reason FROM"
                  + " quarantine WHERE run_id = '%s'\"",
              100 * counts.badFraction(),
              counts.quarantined(),
              counts.input(),
              ceiling,
              run.config().warehouse(),
              run.runId()),
          counts);
    }
    return counts;
  }

  private RunCounts ingest() {
    if (options.format() == null) {
      throw new ConfigException(
          List.of(
              "ingest.format: got nothing, expected one of "
                  + String.join(", ", BenchmarkReaders.formats())
                  + " (--format)"));
    }
    if (options.input() == null) {
      throw new ConfigException(
          List.of("ingest.input: got nothing, expected a file or directory (--input)"));
    }
    BenchmarkReader reader;
    try {
      reader = BenchmarkReaders.forFormat(options.format());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(List.of("ingest.format: " + e.getMessage()));
    }
    InputFiles input = inputFiles(run.spark(), options.input(), reader);
    List<String> files = input.paths();
    SparkSession spark = run.spark();
    // One task per file, which opens it as a stream: a file is never read whole into a row.
    JavaSparkContext context = new JavaSparkContext(spark.sparkContext());
    Broadcast<SerializableConfiguration> hadoop =
        context.broadcast(
            new SerializableConfiguration(spark.sparkContext().hadoopConfiguration()));
    JavaRDD<Row> itemRdd =
        context
            .parallelize(files, Math.max(1, files.size()))
            .flatMap(new ItemRows(reader.format(), hadoop));
    Dataset<Row> items = spark.createDataFrame(itemRdd, ItemRows.SCHEMA).persist(AS_LARGE_AS_INPUT);
    try (ShufflePartitions shuffles = ShufflePartitions.forInput(spark, input.bytes())) {
      Transformed result = transform(items, run.warehouse());
      Dataset<Row> documents = result.documents(); // persisted by transform
      Dataset<Row> questions = result.questions().persist(AS_LARGE_AS_INPUT);
      Map<String, Long> details = new LinkedHashMap<>();
      Tallies tallies = Tallies.of(items, documents, questions);
      Map<String, Long> kinds = tallies.kinds();
      // blank placeholder rows are neither items nor bad records: out of input and the bad fraction
      long blank = kinds.getOrDefault(ItemRows.BLANK, 0L);
      long read = kinds.values().stream().mapToLong(Long::longValue).sum() - blank;
      Map<String, Long> docCounts = tallies.documents();
      Map<String, Long> questionCounts = tallies.questions();
      long rejected = kinds.getOrDefault(ItemRows.REJECTION, 0L);
      docCounts.forEach((k, v) -> details.put("documents." + k, v));
      questionCounts.forEach((k, v) -> details.put("questions." + k, v));
      details.put("reader.rejected", rejected);
      details.put("reader.blank", blank);
      details.put("files", (long) files.size());

      Warehouse warehouse = run.warehouse();
      Contract documentsContract = Contracts.load("documents");
      Contract questionsContract = Contracts.load("questions");
      WriteResult docWrite =
          upsertWritten(warehouse, documentsContract, documents, docCounts.get(WRITTEN));
      WriteResult questionWrite =
          upsertWritten(warehouse, questionsContract, questions, questionCounts.get(WRITTEN));
      // The dead letters are the reader's rejections and the quarantined rows, counted above.
      long quarantined = rejected + docCounts.get(QUARANTINED) + questionCounts.get(QUARANTINED);
      WriteResult quarantineWrite = run.quarantine(result.quarantine(), quarantined);
      putWrite(details, docWrite);
      putWrite(details, questionWrite);
      putWrite(details, quarantineWrite);

      long output =
          docCounts.getOrDefault(WRITTEN, 0L)
              + docCounts.getOrDefault(COLLAPSED, 0L)
              + questionCounts.getOrDefault(WRITTEN, 0L)
              + questionCounts.getOrDefault(COLLAPSED, 0L);
      RunCounts counts = new RunCounts(read, output, quarantined, details);
      printSummary(files, counts, docWrite, questionWrite, quarantineWrite);
      documents.unpersist();
      questions.unpersist();
      return counts;
    } finally {
      items.unpersist();
    }
  }

  /**
   * The pure part: from reader items to the rows of each table, each tagged with its disposition.
   * Reads {@code documents} from the warehouse only to accept questions about documents ingested
   * before.
   */
  public static Transformed transform(Dataset<Row> items, Warehouse warehouse) {
    Contract documentsContract = Contracts.load("documents");
    Contract questionsContract = Contracts.load("questions");

    Dataset<Row> documents =
        items
            .filter(col("kind").equalTo(ItemRows.DOCUMENT))
            .select(withProvenance(documentsContract));
    documents =
        Dispositions.resolveDuplicates(
                Dispositions.checkContract(documents, documentsContract), documentsContract)
            .persist(AS_LARGE_AS_INPUT);

    Dataset<Row> questions =
        items
            .filter(col("kind").equalTo(ItemRows.QUESTION))
            .select(withProvenance(questionsContract));
    questions = Dispositions.checkContract(questions, questionsContract);
    questions = rejectOrphans(questions, documents, warehouse);
    questions = Dispositions.resolveDuplicates(questions, questionsContract);

    Dataset<Row> readerRejections =
        Quarantine.deadLetters(
            items.filter(col("kind").equalTo(ItemRows.REJECTION)),
            col("source_file"),
            col("location"),
            col("payload"),
            col("payload_bytes"),
            col("reason"));
    Dataset<Row> quarantine =
        readerRejections
            .unionByName(Dispositions.quarantined(documents, documentsContract))
            .unionByName(Dispositions.quarantined(questions, questionsContract));
    return new Transformed(documents, questions, quarantine);
  }

  /**
   * Questions naming a document that is neither in this input (written) nor already in the
   * warehouse.
   */
  private static Dataset<Row> rejectOrphans(
      Dataset<Row> questions, Dataset<Row> documents, Warehouse warehouse) {
    Dataset<Row> known =
        documents.filter(col(DISPOSITION).equalTo(WRITTEN)).select(col("doc_id").as("_known_doc"));
    if (warehouse.exists("documents")) {
      known = known.union(warehouse.read("documents").select(col("doc_id").as("_known_doc")));
    }
    known = known.distinct();
    Column orphan =
        col(DISPOSITION).isNull().and(col("doc_id").isNotNull()).and(col("_known_doc").isNull());
    return questions
        .join(known, questions.col("doc_id").equalTo(known.col("_known_doc")), "left")
        .withColumn(
            REASON,
            when(
                    orphan,
                    concat(
                        lit("table questions, column doc_id: got '"),
                        col("doc_id"),
                        lit(
                            "', expected a document of this input or of the documents table (was it quarantined?)")))
                .otherwise(col(REASON)))
        .withColumn(DISPOSITION, when(orphan, lit(QUARANTINED)).otherwise(col(DISPOSITION)))
        .drop("_known_doc");
  }

  private static Column[] withProvenance(Contract contract) {
    List<Column> columns = new ArrayList<>();
    contract.columnNames().forEach(c -> columns.add(col(c)));
    columns.add(col("source_file"));
    columns.add(col("ordinal"));
    columns.add(col("location"));
    return columns.toArray(Column[]::new);
  }

  private static Dataset<Row> written(Dataset<Row> rows, Contract contract) {
    return rows.filter(col(DISPOSITION).equalTo(WRITTEN))
        .select(contract.columnNames().stream().map(c -> col(c)).toArray(Column[]::new));
  }

  /**
   * Upserts the written rows; with none (a questions-only benchmark has no documents), only makes
   * sure the table exists, without the write's Spark jobs.
   */
  private static WriteResult upsertWritten(
      Warehouse warehouse, Contract contract, Dataset<Row> rows, long writtenCount) {
    if (writtenCount == 0) {
      warehouse.ensureTable(contract);
      return WriteResult.unchanged(contract.table());
    }
    return warehouse.upsert(contract, written(rows, contract));
  }

  /**
   * The reader's items by kind and each table's rows by disposition, from one Spark job: each count
   * of its own was a job, and on a small input the jobs are most of the run.
   */
  private record Tallies(
      Map<String, Long> kinds, Map<String, Long> documents, Map<String, Long> questions) {
    static Tallies of(Dataset<Row> items, Dataset<Row> documents, Dataset<Row> questions) {
      Dataset<Row> labelled =
          items
              .select(lit("kinds").as("of"), col("kind").as("value"))
              .unionByName(
                  documents.select(lit("documents").as("of"), col(DISPOSITION).as("value")))
              .unionByName(
                  questions.select(lit("questions").as("of"), col(DISPOSITION).as("value")));
      Tallies tallies = new Tallies(new HashMap<>(), dispositionCounts(), dispositionCounts());
      for (Row row : labelled.groupBy("of", "value").count().collectAsList()) {
        Map<String, Long> counts =
            switch (row.getString(0)) {
              case "kinds" -> tallies.kinds();
              case "documents" -> tallies.documents();
              default -> tallies.questions();
            };
        counts.put(row.getString(1), row.getLong(2));
      }
      return tallies;
    }

    private static Map<String, Long> dispositionCounts() {
      Map<String, Long> counts = new LinkedHashMap<>();
      counts.put(WRITTEN, 0L);
      counts.put(COLLAPSED, 0L);
      counts.put(QUARANTINED, 0L);
      return counts;
    }
  }

  private static void putWrite(Map<String, Long> details, WriteResult write) {
    details.put(write.table() + ".inserted", write.inserted());
    details.put(write.table() + ".updated", write.updated());
  }

  /** The files an ingest reads, sorted, and their total size. */
  record InputFiles(List<String> paths, long bytes) {}

  /**
   * Files of the format under {@code input}: the file itself, or the accepted files of a directory
   * tree.
   */
  static InputFiles inputFiles(SparkSession spark, String input, BenchmarkReader reader) {
    try {
      Path path = new Path(input);
      FileSystem fs = path.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(path)) {
        throw new ConfigException(
            List.of("ingest.input: got " + input + ", expected an existing file or directory"));
      }
      FileStatus status = fs.getFileStatus(path);
      if (status.isFile()) {
        return new InputFiles(List.of(status.getPath().toString()), status.getLen());
      }
      List<String> files = new ArrayList<>();
      long bytes = 0;
      RemoteIterator<LocatedFileStatus> listing = fs.listFiles(path, true);
      while (listing.hasNext()) {
        LocatedFileStatus file = listing.next();
        String name = file.getPath().getName();
        if (!name.startsWith(".") && !name.startsWith("_") && reader.accepts(name)) {
          files.add(file.getPath().toString());
          bytes += file.getLen();
        }
      }
      if (files.isEmpty()) {
        throw new ConfigException(
            List.of(
                "ingest.input: directory "
                    + input
                    + " holds no "
                    + reader.format()
                    + " files, expected at least one file the "
                    + reader.format()
                    + " reader accepts"));
      }
      files.sort(String::compareTo);
      return new InputFiles(files, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + input, e);
    }
  }

  private void printSummary(List<String> files, RunCounts counts, WriteResult... writes) {
    var out = run.out();
    out.printf(
        Locale.ROOT,
        "ingest %s: %d file(s) from %s%n",
        options.format(),
        files.size(),
        options.input());
    out.printf(
        Locale.ROOT,
        "  read %d items: %d written, %d quarantined (%.1f%%)%n",
        counts.input(),
        counts.output(),
        counts.quarantined(),
        100 * counts.badFraction());
    Map<String, Long> d = counts.details();
    out.printf(
        Locale.ROOT,
        "  documents: %d rows, %d identical repeats collapsed, %d quarantined%n",
        d.get("documents.written"),
        d.get("documents.collapsed"),
        d.get("documents.quarantined"));
    out.printf(
        Locale.ROOT,
        "  questions: %d rows, %d identical repeats collapsed, %d quarantined%n",
        d.get("questions.written"),
        d.get("questions.collapsed"),
        d.get("questions.quarantined"));
    out.printf(Locale.ROOT, "  reader rejections: %d%n", d.get("reader.rejected"));
    out.printf(Locale.ROOT, "  blank rows skipped: %d%n", d.get("reader.blank"));
    for (WriteResult write : writes) {
      out.println("  " + write);
    }
    out.flush();
  }
}
