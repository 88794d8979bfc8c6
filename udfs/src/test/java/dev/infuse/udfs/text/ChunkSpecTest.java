package dev.infuse.udfs.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ChunkSpecTest {
  @Test
  void defaultsAreEntiGraphsRagRecipe() {
    assertThat(ChunkSpec.defaults()).isEqualTo(new ChunkSpec(1024, 0));
  }

  @Test
  void acceptsTheSmallestValidSpec() {
    assertThat(new ChunkSpec(16, 7).overlapTokens()).isEqualTo(7);
  }

  @Test
  void rejectsTooFewMaxTokens() {
    assertThatThrownBy(() -> new ChunkSpec(15, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chunk.max_tokens: got 15, expected an integer >= 16");
  }

  @Test
  void rejectsNegativeOverlap() {
    assertThatThrownBy(() -> new ChunkSpec(256, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("chunk.overlap_tokens: got -1, expected an integer >= 0 and < 128");
  }

  @Test
  void rejectsOverlapOfHalfAChunk() {
    assertThatThrownBy(() -> new ChunkSpec(256, 128))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "chunk.overlap_tokens: got 128, expected an integer >= 0 and < 128");
  }
}
