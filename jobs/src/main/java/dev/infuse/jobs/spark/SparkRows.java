package dev.infuse.jobs.spark;

import java.util.Map;

/**
 * Conversions for building Spark {@code Row}s by hand: Spark's row encoder takes Scala maps and
 * sequences only.
 */
public final class SparkRows {
  private SparkRows() {}

  /**
   * A Java map as the {@code scala.collection.Map} a {@code map<…>} column needs; null stays null.
   */
  public static <K, V> scala.collection.Map<K, V> map(Map<K, V> map) {
    return map == null ? null : scala.collection.JavaConverters.mapAsScalaMap(map);
  }

  /**
   * A Java list as the {@code scala.collection.Seq} an {@code array<…>} column needs; null stays
   * null.
   */
  public static <T> scala.collection.Seq<T> seq(java.util.List<T> list) {
    return list == null ? null : scala.collection.JavaConverters.asScalaBuffer(list).toSeq();
  }
}
