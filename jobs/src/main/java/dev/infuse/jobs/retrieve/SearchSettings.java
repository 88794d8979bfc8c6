package dev.infuse.jobs.retrieve;

import dev.infuse.udfs.retrieve.Retriever;
import java.io.Serializable;

/**
 * What one retrieve run asks of every shard and question: the retriever, the final k, and for
 * hybrid how deep each ranking goes into the fusion and the RRF constant.
 */
record SearchSettings(Retriever retriever, int k, int rrfDepth, int rrfK) implements Serializable {
  /**
   * How many chunks each shard returns per ranking: the final k, or the fusion depth for hybrid.
   */
  int depth() {
    return retriever == Retriever.HYBRID ? Math.max(k, rrfDepth) : k;
  }
}
