package dev.infuse.udfs.retrieve;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.util.BytesRef;

/**
 * A Lucene BM25 index over chunks, in memory, searchable within one document or across all of them.
 *
 * <p>Analysis is Lucene's {@link EnglishAnalyzer}: standard tokenization, English possessives
 * removed, lower case, English stop words removed and Porter stemming. Every benchmark with
 * documents (QuALITY, LongHealth, FinanceBench) is English, and a question rarely uses the same
 * inflection as its evidence ("revenues" / "revenue", "decreased" / "decrease"); stemming and stop
 * words are also the usual BM25 baseline setting (Anserini's, for example). StandardAnalyzer would
 * keep inflections apart and let "the"/"of" take part in scoring.
 *
 * <p>Scoring is Lucene's {@link BM25Similarity} (k1 1.2, b 0.75) through one {@link TermQuery} per
 * query token; this class only adds the per-token scores in a fixed order (sorted tokens) and keeps
 * the top k by (score, chunk id). A Lucene {@code BooleanQuery} would sum the same scores in an
 * order that depends on the index's layout, and break ties by internal doc number; the fixed order
 * makes a shard searched with the whole corpus's {@link Bm25Statistics} return bit-for-bit what one
 * index over the corpus returns. Instances are safe for concurrent searches.
 */
public final class Bm25Index implements AutoCloseable {
  public static final String TEXT = "text";
  public static final String CHUNK_ID = "chunk_id";
  public static final String DOC_ID = "doc_id";

  /** Names the analysis, so an index built with another one is never searched with this one. */
  public static final String ANALYZER_ID = "lucene-9.12-english";

  private static final Analyzer ANALYZER = new EnglishAnalyzer();

  private final Directory directory;
  private final DirectoryReader reader;
  private final String[] chunkIds;
  private final String[] docIds;

  private Bm25Index(Directory directory) throws IOException {
    this.directory = directory;
    this.reader = DirectoryReader.open(directory);
    this.chunkIds = new String[reader.maxDoc()];
    this.docIds = new String[reader.maxDoc()];
    StoredFields stored = reader.storedFields();
    for (int doc = 0; doc < reader.maxDoc(); doc++) {
      Document fields = stored.document(doc);
      chunkIds[doc] = fields.get(CHUNK_ID);
      docIds[doc] = fields.get(DOC_ID);
    }
  }

  /** Indexes {@code chunks} in memory. */
  public static Bm25Index build(Iterable<ChunkText> chunks) {
    try {
      Directory directory = new ByteBuffersDirectory();
      IndexWriterConfig config =
          new IndexWriterConfig(ANALYZER)
              .setSimilarity(new BM25Similarity())
              .setOpenMode(IndexWriterConfig.OpenMode.CREATE);
      try (IndexWriter writer = new IndexWriter(directory, config)) {
        for (ChunkText chunk : chunks) {
          Document doc = new Document();
          doc.add(new StringField(CHUNK_ID, chunk.chunkId(), Field.Store.YES));
          doc.add(new StringField(DOC_ID, chunk.docId(), Field.Store.YES));
          doc.add(new TextField(TEXT, chunk.text(), Field.Store.NO));
          writer.addDocument(doc);
        }
        // One segment: smaller files to ship, and one leaf to search.
        writer.forceMerge(1);
        writer.commit();
      }
      return new Bm25Index(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot build the BM25 index", e);
    }
  }

  /** An index from the files {@link #files()} returned (read back from storage). */
  public static Bm25Index fromFiles(Map<String, byte[]> files) {
    try {
      Directory directory = new ByteBuffersDirectory();
      for (Map.Entry<String, byte[]> file : files.entrySet()) {
        try (IndexOutput out = directory.createOutput(file.getKey(), IOContext.DEFAULT)) {
          out.writeBytes(file.getValue(), file.getValue().length);
        }
      }
      return new Bm25Index(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the BM25 index from " + files.keySet(), e);
    }
  }

  /** The index's files by name, to store it; {@link #fromFiles} opens them again. */
  public Map<String, byte[]> files() {
    try {
      Map<String, byte[]> files = new LinkedHashMap<>();
      for (String name : directory.listAll()) {
        try (IndexInput in = directory.openInput(name, IOContext.READONCE)) {
          byte[] bytes = new byte[Math.toIntExact(in.length())];
          in.readBytes(bytes, 0, bytes.length);
          files.put(name, bytes);
        }
      }
      return files;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the BM25 index files", e);
    }
  }

  /** Chunks in the index. */
  public int size() {
    return reader.numDocs();
  }

  /**
   * The analyzed tokens of {@code text}, in order, repeats kept: what a query or a chunk is matched
   * on.
   */
  public static List<String> tokens(String text) {
    List<String> tokens = new ArrayList<>();
    try (TokenStream stream = ANALYZER.tokenStream(TEXT, text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        tokens.add(term.toString());
      }
      stream.end();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot analyze text", e);
    }
    return tokens;
  }

  /**
   * This index's own statistics for {@code terms} (a term absent here counts zero and is left out).
   */
  public Bm25Statistics statistics(Collection<String> terms) {
    try {
      Map<String, Bm25Statistics.TermCounts> counts = new HashMap<>();
      for (String text : terms) {
        Term term = new Term(TEXT, text);
        int docFreq = reader.docFreq(term);
        if (docFreq > 0) {
          counts.put(text, new Bm25Statistics.TermCounts(docFreq, reader.totalTermFreq(term)));
        }
      }
      return collection(counts);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read index statistics", e);
    }
  }

  /**
   * Calls {@code each} with every indexed term and its counts, for storing a corpus's term
   * statistics.
   */
  public void forEachTerm(BiConsumer<String, Bm25Statistics.TermCounts> each) {
    try {
      Terms terms = MultiTerms.getTerms(reader, TEXT);
      if (terms == null) {
        return;
      }
      TermsEnum it = terms.iterator();
      for (BytesRef term = it.next(); term != null; term = it.next()) {
        each.accept(
            term.utf8ToString(), new Bm25Statistics.TermCounts(it.docFreq(), it.totalTermFreq()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read index terms", e);
    }
  }

  /** This index's collection counts, without term counts. */
  public Bm25Statistics collectionStatistics() {
    return collection(Map.of());
  }

  private Bm25Statistics collection(Map<String, Bm25Statistics.TermCounts> counts) {
    try {
      CollectionStatistics stats = new IndexSearcher(reader).collectionStatistics(TEXT);
      return stats == null
          ? Bm25Statistics.empty().withTerms(counts)
          : new Bm25Statistics(
              stats.maxDoc(),
              stats.docCount(),
              stats.sumDocFreq(),
              stats.sumTotalTermFreq(),
              counts);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read index statistics", e);
    }
  }

  /** Searches with this index's own statistics: what a single JVM holding the whole corpus does. */
  public List<ScoredChunk> search(String query, String docId, int k) {
    return search(tokens(query), docId, k, null);
  }

  /**
   * The {@code k} best chunks for the analyzed {@code queryTokens}, best first; fewer when fewer
   * chunks contain a query token.
   *
   * @param docId search only this document's chunks; null for every chunk
   * @param corpus the statistics to score with (the whole corpus's, when this index is one shard of
   *     it); null for this index's own
   */
  public List<ScoredChunk> search(
      List<String> queryTokens, String docId, int k, Bm25Statistics corpus) {
    // Token -> occurrences, in sorted order: the summation order every shard shares.
    TreeMap<String, Integer> occurrences = new TreeMap<>();
    queryTokens.forEach(token -> occurrences.merge(token, 1, Integer::sum));
    IndexSearcher searcher =
        corpus == null ? new IndexSearcher(reader) : new CorpusStatisticsSearcher(reader, corpus);
    searcher.setSimilarity(new BM25Similarity());
    searcher.setQueryCache(null);
    double[] sums = new double[reader.maxDoc()];
    boolean[] matched = new boolean[reader.maxDoc()];
    try {
      for (Map.Entry<String, Integer> token : occurrences.entrySet()) {
        Query query = new TermQuery(new Term(TEXT, token.getKey()));
        if (docId != null) {
          // A FILTER clause restricts without scoring: the conjunction's score is the term's alone.
          query =
              new BooleanQuery.Builder()
                  .add(query, BooleanClause.Occur.MUST)
                  .add(new TermQuery(new Term(DOC_ID, docId)), BooleanClause.Occur.FILTER)
                  .build();
        }
        searcher.search(query, new Accumulator(sums, matched, token.getValue()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("BM25 search failed", e);
    }
    TopK top = new TopK(k);
    for (int doc = 0; doc < sums.length; doc++) {
      if (matched[doc]) {
        top.offer(new ScoredChunk(chunkIds[doc], docIds[doc], sums[doc]));
      }
    }
    return top.best();
  }

  @Override
  public void close() {
    try {
      reader.close();
      directory.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Adds one token's score, once per occurrence in the query, to every matching chunk's sum. */
  private static final class Accumulator extends SimpleCollector {
    private final double[] sums;
    private final boolean[] matched;
    private final int times;
    private Scorable scorer;
    private int docBase;

    Accumulator(double[] sums, boolean[] matched, int times) {
      this.sums = sums;
      this.matched = matched;
      this.times = times;
    }

    @Override
    protected void doSetNextReader(org.apache.lucene.index.LeafReaderContext context) {
      docBase = context.docBase;
    }

    @Override
    public void setScorer(Scorable scorer) {
      this.scorer = scorer;
    }

    @Override
    public void collect(int doc) throws IOException {
      float score = scorer.score();
      for (int i = 0; i < times; i++) {
        sums[docBase + doc] += score;
      }
      matched[docBase + doc] = true;
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE;
    }
  }

  /** Scores with a whole corpus's statistics instead of this shard's own. */
  private static final class CorpusStatisticsSearcher extends IndexSearcher {
    private final Bm25Statistics corpus;

    CorpusStatisticsSearcher(DirectoryReader reader, Bm25Statistics corpus) {
      super(reader);
      this.corpus = corpus;
    }

    @Override
    public CollectionStatistics collectionStatistics(String field) throws IOException {
      if (!TEXT.equals(field)) {
        return super.collectionStatistics(field);
      }
      return new CollectionStatistics(
          field,
          corpus.maxDoc(),
          corpus.docCount(),
          corpus.sumTotalTermFreq(),
          corpus.sumDocFreq());
    }

    @Override
    public TermStatistics termStatistics(Term term, int docFreq, long totalTermFreq)
        throws IOException {
      if (!TEXT.equals(term.field())) {
        return super.termStatistics(term, docFreq, totalTermFreq);
      }
      Bm25Statistics.TermCounts counts = corpus.terms().get(term.text());
      if (counts == null) {
        throw new IllegalStateException(
            "the corpus statistics lack the term '"
                + term.text()
                + "' that this shard holds; they must cover every query token");
      }
      return new TermStatistics(term.bytes(), counts.docFreq(), counts.totalTermFreq());
    }
  }
}
