package dev.infuse.jobs.shards;

import dev.infuse.udfs.dedup.LshBands;
import dev.infuse.udfs.dedup.MinHasher;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Explodes {@code (row_id, signature)} into one {@code (band, band_key, row_id)} per band. A text
 * without shingles (empty after normalisation) gets no keys: its signature would equal every other
 * empty one although nothing was compared.
 */
final class BandKeyRows implements FlatMapFunction<Row, Row> {
  private static final long serialVersionUID = 1L;

  static final StructType SCHEMA =
      new StructType()
          .add("band", DataTypes.IntegerType, false)
          .add("band_key", DataTypes.LongType, false)
          .add("row_id", DataTypes.StringType, false);

  private final LshBands bands;

  BandKeyRows(LshBands bands) {
    this.bands = bands;
  }

  @Override
  public Iterator<Row> call(Row row) {
    long[] signature = SignatureRows.fromBytes((byte[]) row.get(1));
    if (MinHasher.isEmpty(signature)) {
      return List.<Row>of().iterator();
    }
    long[] keys = bands.keys(signature);
    List<Row> out = new ArrayList<>(keys.length);
    for (int band = 0; band < keys.length; band++) {
      out.add(RowFactory.create(band, keys[band], row.getString(0)));
    }
    return out.iterator();
  }
}
