package dev.infuse.udfs.model;

import ai.djl.repository.zoo.Criteria;
import java.nio.file.Path;

/**
 * Points a DJL {@link Criteria} at one model file. DJL loads a bare file too, but its repository
 * then warns on every load that it points to "a non-archive file", which a user cannot act on; the
 * folder plus the file's stem as model name is the form it loads quietly.
 */
public final class ModelFileCriteria {
  private ModelFileCriteria() {}

  /**
   * Sets {@code builder}'s model path and name to load {@code modelFile}, e.g. {@code dir/x.onnx}.
   */
  public static <I, O> Criteria.Builder<I, O> forFile(
      Criteria.Builder<I, O> builder, Path modelFile) {
    String fileName = modelFile.getFileName().toString();
    int dot = fileName.lastIndexOf('.');
    String stem = dot > 0 ? fileName.substring(0, dot) : fileName;
    return builder.optModelPath(modelFile.toAbsolutePath().getParent()).optModelName(stem);
  }
}
