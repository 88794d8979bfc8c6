package dev.infuse.udfs.lm.rl;

/**
 * One verifier training example.
 *
 * @param promptIds the question's tokens (may be empty)
 * @param responseIds the answer's tokens, at least one; every one is trained toward the label
 * @param label 1 for a correct answer, 0 for a wrong one
 */
public record VerifierExample(int[] promptIds, int[] responseIds, int label) {}
