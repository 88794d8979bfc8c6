package dev.infuse.jobs.retrieve;

import dev.infuse.jobs.config.ConfigSection;
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
 */
public record RetrieveConfig(
    Retriever retriever,
    int k,
    Scoping scoping,
    int rrfK,
    int rrfDepth,
    List<Integer> recallKs,
    String benchmark,
    int maxQuestions)
    implements ConfigSection {
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
    return problems;
  }
}
