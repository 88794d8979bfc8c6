package dev.infuse.jobs.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

class ShufflePartitionsTest {
  private static final String KEY = "spark.sql.shuffle.partitions";

  @Test
  void aLargeInputGetsOnePartitionPerTargetSizeUntilClosed() {
    SparkSession spark = SparkTestSession.get();
    String before = spark.conf().get(KEY);
    long input = (64L << 30) + 1;
    try (ShufflePartitions shuffles = ShufflePartitions.forInput(spark, input)) {
      // 64 GB and a byte over 64 MB partitions: 1,025, more than any session here has.
      assertThat(shuffles.partitions()).isEqualTo(1025);
      assertThat(spark.conf().get(KEY)).isEqualTo("1025");
    }
    assertThat(spark.conf().get(KEY)).isEqualTo(before);
  }

  @Test
  void aSmallInputKeepsTheSessionsSetting() {
    SparkSession spark = SparkTestSession.get();
    String before = spark.conf().get(KEY);
    try (ShufflePartitions shuffles = ShufflePartitions.forInput(spark, 1_000)) {
      assertThat(shuffles.partitions()).isEqualTo(Integer.parseInt(before));
      assertThat(spark.conf().get(KEY)).isEqualTo(before);
    }
    assertThat(spark.conf().get(KEY)).isEqualTo(before);
  }
}
