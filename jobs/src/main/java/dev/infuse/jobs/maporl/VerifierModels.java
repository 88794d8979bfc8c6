package dev.infuse.jobs.maporl;

import dev.infuse.udfs.lm.rl.ScalarVerifier;
import dev.infuse.udfs.model.Devices;
import dev.infuse.udfs.model.ExecutorModels;
import dev.infuse.udfs.model.ModelSpec;
import java.nio.file.Path;

/**
 * The {@code model} verifier on the executors: the scalar-head verifier that {@code train-verifier}
 * wrote, loaded once per JVM, scoring P(correct) of a response from the question and the response
 * alone (the reference's reward model sees no gold answer).
 */
final class VerifierModels {
  private VerifierModels() {}

  /** Loads a verifier directory once per executor JVM. */
  record Spec(String directory) implements ModelSpec<ScalarVerifier> {
    private static final long serialVersionUID = 1L;

    @Override
    public String cacheKey() {
      return "scalar-verifier:" + Path.of(directory).toAbsolutePath().normalize();
    }

    @Override
    public ScalarVerifier load() {
      if (!ScalarVerifier.isVerifier(Path.of(directory))) {
        throw new IllegalArgumentException(
            "discuss.verifier_model: got "
                + directory
                + ", expected a directory train-verifier wrote (with "
                + ScalarVerifier.MARKER
                + ")");
      }
      return ScalarVerifier.load(Path.of(directory), Devices.resolve("auto", "PyTorch"));
    }
  }

  /**
   * Scores {@code response} to {@code question}, the question as the agents read it ({@link
   * DiscussJob#displayQuestion}); {@code train-verifier} trains on the same texts.
   */
  static double score(String directory, String question, String response) {
    ScalarVerifier verifier = ExecutorModels.get(new Spec(directory));
    int[][] ids = ids(verifier, question, response);
    // One forward pass at a time per verifier: its backbone is shared by the JVM's tasks.
    synchronized (verifier) {
      return verifier.score(ids[0], ids[1]);
    }
  }

  /**
   * {question, response} token ids as the verifier reads them, in training ({@code train-verifier})
   * and scoring alike: the backbone's tokenizer, an empty response as one space, cut to the context
   * by {@link RlTexts#fit}.
   */
  static int[][] ids(ScalarVerifier verifier, String question, String response) {
    return RlTexts.fit(
        RlTexts.ids(verifier.backbone().tokenizer(), question),
        RlTexts.ids(verifier.backbone().tokenizer(), response.isEmpty() ? " " : response),
        verifier.backbone().config().contextLength());
  }
}
