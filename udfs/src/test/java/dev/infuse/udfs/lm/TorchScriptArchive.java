package dev.infuse.udfs.lm;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Writes a tiny TorchScript archive by hand, without Python or torch, for tests: the zip layout
 * {@code torch.jit.save} produces for a parameter-free module (its TorchScript source under {@code
 * code/}, the pickled module object in {@code data.pkl}, an empty constants table and a format
 * version). TorchScript compiles the source when it loads the archive.
 *
 * <p>The module's forward is {@code one_hot((input_ids + 1) % V, V) * attention_mask[..., None]} as
 * float32: the greedy next token is always the next id, each real position's log-probability of it
 * is {@code ln(e / (e + V - 1))}, and padding positions are all zero.
 */
public final class TorchScriptArchive {
  private static final String CLASS_NAME = "OneHotNext";

  private TorchScriptArchive() {}

  /** Writes the one-hot-next module for a vocabulary of {@code vocab} tokens to {@code file}. */
  public static void writeOneHotNext(Path file, int vocab) throws IOException {
    String source =
        String.join(
            "\n",
            "class " + CLASS_NAME + "(Module):",
            "  __parameters__ = []",
            "  __buffers__ = []",
            "  training : bool",
            "  def forward(self: __torch__." + CLASS_NAME + ",",
            "    input_ids: Tensor,",
            "    attention_mask: Tensor) -> Tensor:",
            "    next_ids = torch.remainder(torch.add(input_ids, 1), " + vocab + ")",
            "    hot = torch.one_hot(next_ids, " + vocab + ")",
            "    masked = torch.mul(hot, torch.unsqueeze(attention_mask, -1))",
            "    return torch.to(masked, 6)",
            "");
    writeModule(file, CLASS_NAME, source);
  }

  /**
   * Writes a parameter-free module named {@code className} whose TorchScript source (the class
   * definition, as {@code code/__torch__.py} holds it) is {@code source}.
   */
  public static void writeModule(Path file, String className, String source) throws IOException {
    Map<String, byte[]> entries = new LinkedHashMap<>();
    entries.put("model/data.pkl", moduleObjectPickle(className));
    entries.put("model/code/__torch__.py", source.getBytes(StandardCharsets.UTF_8));
    entries.put("model/constants.pkl", new byte[] {(byte) 0x80, 2, ')', '.'});
    entries.put("model/version", "3\n".getBytes(StandardCharsets.US_ASCII));
    try (OutputStream out = Files.newOutputStream(file);
        ZipOutputStream zip = new ZipOutputStream(out)) {
      for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
        zip.putNextEntry(stored(entry.getKey(), entry.getValue()));
        zip.write(entry.getValue());
        zip.closeEntry();
      }
    }
  }

  /**
   * Pickle protocol 2, as TorchScript's pickler writes a module object: GLOBAL
   * __torch__.&lt;className&gt;, EMPTY_TUPLE, NEWOBJ, then its attributes {'training': False},
   * BUILD.
   */
  private static byte[] moduleObjectPickle(String className) {
    ByteArrayOutputStream pickle = new ByteArrayOutputStream();
    pickle.write(0x80);
    pickle.write(2);
    pickle.writeBytes(("c__torch__\n" + className + "\n").getBytes(StandardCharsets.US_ASCII));
    pickle.write(')');
    pickle.write(0x81);
    pickle.write('}');
    pickle.write('(');
    byte[] name = "training".getBytes(StandardCharsets.US_ASCII);
    pickle.write('X');
    pickle.write(name.length);
    pickle.write(0);
    pickle.write(0);
    pickle.write(0);
    pickle.writeBytes(name);
    pickle.write(0x89);
    pickle.write('u');
    pickle.write('b');
    pickle.write('.');
    return pickle.toByteArray();
  }

  /** Uncompressed, as torch writes its records. */
  private static ZipEntry stored(String name, byte[] data) {
    ZipEntry entry = new ZipEntry(name);
    CRC32 crc = new CRC32();
    crc.update(data);
    entry.setMethod(ZipEntry.STORED);
    entry.setSize(data.length);
    entry.setCompressedSize(data.length);
    entry.setCrc(crc.getValue());
    return entry;
  }
}
