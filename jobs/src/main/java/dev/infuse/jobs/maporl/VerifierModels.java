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

  static double score(String directory, String question, String response) {
    ScalarVerifier verifier = ExecutorModels.get(new Spec(directory));
    int[][] ids =
        RlTexts.fit(
            RlTexts.ids(verifier.backbone().tokenizer(), question),
            RlTexts.ids(verifier.backbone().tokenizer(), response.isEmpty() ? " " : response),
            verifier.backbone().config().contextLength());
    // One forward pass at a time per verifier: its backbone is shared by the JVM's tasks.
    synchronized (verifier) {
      return verifier.score(ids[0], ids[1]);
    }
  }
}
