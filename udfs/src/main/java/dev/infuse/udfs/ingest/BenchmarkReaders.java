package dev.infuse.udfs.ingest;

import dev.infuse.udfs.common.Registry;
import java.util.Set;

/** The readers by {@code --format} name; an unknown name fails with the nearest valid one. */
public final class BenchmarkReaders {
  private static final Registry<BenchmarkReader> READERS =
      registry(
          new QualityReader(),
          new FinanceBenchReader(),
          new Gsm8kReader(),
          new AnliReader(),
          new MedQaReader(),
          new LongHealthReader(),
          new MedecReader(),
          new AciBenchReader(),
          new AgentClinicReader());

  private BenchmarkReaders() {}

  /**
   * The reader for a format name; throws {@link IllegalArgumentException} with "did you mean" if
   * unknown.
   */
  public static BenchmarkReader forFormat(String name) {
    return READERS.get(name);
  }

  /** All format names, in registration order. */
  public static Set<String> formats() {
    return READERS.names();
  }

  private static Registry<BenchmarkReader> registry(BenchmarkReader... readers) {
    Registry<BenchmarkReader> registry = new Registry<>("format");
    for (BenchmarkReader reader : readers) {
      registry.register(reader.format(), reader);
    }
    return registry;
  }
}
