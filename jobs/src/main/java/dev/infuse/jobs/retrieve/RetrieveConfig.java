package dev.infuse.jobs.retrieve;

import dev.infuse.jobs.config.ConfigSection;
import dev.infuse.udfs.retrieve.CrossEncoderSpec;
import dev.infuse.udfs.retrieve.Retriever;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code retrieve} section. See defaults.yaml for each key.
 *
 * @param retriever bm25, dense or hybrid (reciprocal-rank fusion of the two)
 * @param k chunks retrieved per question
 * @param scoping auto (a question with a doc_id searches its document, one without the corpus),
 *     document or corpus
 * @param rrfK the RRF constant: a chunk scores the sum of 1 / (rrf_k + rank)
 * @param rrfDepth for hybrid: how many chunks of each ranking are fused (>= k)
 * @param recallKs the k of each recall@k row; those above {@code k} are skipped (a run retrieves
 *     only k)
 * @param benchmark only this benchmark's questions; null for every question with indexed documents
 * @param maxQuestions the first N questions by question_id; 0 for all
 * @param queryTemplate the id of the query template in {@code run.prompts_dir} (its latest
 *     version): how a question becomes the query that BM25, the embedder and the reranker see
 * @param rerank a local cross-encoder directory (model.onnx or model.pt beside tokenizer.json);
 *     null for no reranking
 * @param rerankDepth with a reranker: first-stage chunks per question that it scores (k is then
 *     unused)
 * @param rerankTopK with a reranker: the best chunks by its score that are kept, as ranks 1..N
 * @param rerankBatchSize (query, chunk) pairs per forward pass
 * @param rerankDevice auto, cpu, gpu or gpu:N
 * @param rerankMaxLength the longest (query, chunk) pair fed to the model, longer pairs truncated
 *     longest-first; 0 for the model's own length
 */
public record RetrieveConfig(
    Retriever retriever,
    int k,
    Scoping scoping,
    int rrfK,
    int rrfDepth,
    List<Integer> recallKs,
    String benchmark,
    int maxQuestions,
    String queryTemplate,
    String rerank,
    int rerankDepth,
    int rerankTopK,
    int rerankBatchSize,
    String rerankDevice,
    int rerankMaxLength)
    implements ConfigSection {
  /** Whether a reranker is configured. */
  public boolean reranks() {
    return rerank != null && !rerank.isBlank();
  }

  /** The chunks each question keeps in {@code retrievals}: rerank_top_k with a reranker, else k. */
  public int kept() {
    return reranks() ? rerankTopK : k;
  }

  /** The chunks the first stage retrieves per question: rerank_depth with a reranker, else k. */
  public int firstStageK() {
    return reranks() ? rerankDepth : k;
  }

  /** The reranker's spec; null without one. */
  public CrossEncoderSpec rerankSpec() {
    return reranks()
        ? new CrossEncoderSpec(rerank.trim(), rerankDevice, rerankBatchSize, rerankMaxLength)
        : null;
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (retriever == null) {
      problems.add("retriever: got nothing, expected bm25, dense or hybrid");
    }
    if (k < 1) {
      problems.add("k: got " + k + ", expected an integer >= 1");
    }
    if (scoping == null) {
      problems.add("scoping: got nothing, expected auto, document or corpus");
    }
    if (rrfK < 0) {
      problems.add("rrf_k: got " + rrfK + ", expected an integer >= 0");
    }
    if (rrfDepth < k) {
      problems.add(
          "rrf_depth: got " + rrfDepth + ", expected an integer >= retrieve.k (" + k + ")");
    }
    for (Integer recallK : recallKs) {
      if (recallK == null || recallK < 1) {
        problems.add("recall_ks: got " + recallK + ", expected integers >= 1");
      }
    }
    if (maxQuestions < 0) {
      problems.add("max_questions: got " + maxQuestions + ", expected >= 0 (0 for all)");
    }
    if (queryTemplate == null || queryTemplate.isBlank()) {
      problems.add(
          "query_template: got nothing, expected the id of a query template in run.prompts_dir"
              + " (query/question, query/entigraph)");
    }
    if (rerankTopK < 1) {
      problems.add("rerank_top_k: got " + rerankTopK + ", expected an integer >= 1");
    }
    if (rerankDepth < Math.max(1, rerankTopK)) {
      problems.add(
          "rerank_depth: got "
              + rerankDepth
              + ", expected an integer >= retrieve.rerank_top_k ("
              + rerankTopK
              + ")");
    }
    // The model directory itself is checked when the run starts (it must exist where it runs).
    new CrossEncoderSpec("set", rerankDevice, rerankBatchSize, rerankMaxLength)
        .problems()
        .forEach(problems::add);
    return problems;
  }
}
