package dev.infuse.udfs.lm;

import ai.djl.Device;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Tiny models over the MiniLM tokenizer, small enough that tests stay fast on two shared cores. */
public final class TinyLms {
  /** MiniLM's [SEP] and [PAD]. */
  public static final int EOS = 102;

  public static final int PAD = 0;

  private TinyLms() {}

  /** Two layers, width 32, four heads, 32 positions. */
  public static LmConfig config() {
    return new LmConfig(LmConfig.INFUSE_DECODER, 30522, 2, 32, 4, 32, 4, EOS, PAD);
  }

  /** The MiniLM tokenizer.json bytes from the classpath. */
  public static byte[] tokenizerJson() {
    try (InputStream in =
        TinyLms.class.getClassLoader().getResourceAsStream("all-minilm-l6-v2-tokenizer.json")) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static DecoderLm create(long seed) {
    return DecoderLm.create(config(), tokenizerJson(), Device.cpu(), seed);
  }
}
