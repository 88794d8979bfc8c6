package dev.infuse.jobs.cli;

import dev.infuse.jobs.chunk.ChunkJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "chunk",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Cut documents into chunks of tokens or characters.",
    description = {
      "By tokens, chunks end at a paragraph or sentence end where they can; by characters, they "
          + "are split recursively at paragraphs, lines, words, then characters (LangChain's "
          + "splitter, EntiGraph's RAG baseline). Offsets map back into documents.text exactly; "
          + "re-chunking replaces a document's chunks."
    })
public final class ChunkCommand extends JobCommand {
  @Option(
      names = "--unit",
      paramLabel = "tokens|chars",
      description = "What the chunk size counts.")
  @ConfigKey("chunk.unit")
  String unit;

  @Option(names = "--max-tokens", paramLabel = "N", description = "Chunk size in tokens.")
  @ConfigKey("chunk.max_tokens")
  Integer maxTokens;

  @Option(names = "--overlap-tokens", paramLabel = "N", description = "Overlap in tokens.")
  @ConfigKey("chunk.overlap_tokens")
  Integer overlapTokens;

  @Option(names = "--max-chars", paramLabel = "N", description = "Chunk size in characters.")
  @ConfigKey("chunk.max_chars")
  Integer maxChars;

  @Option(names = "--overlap-chars", paramLabel = "N", description = "Overlap in characters.")
  @ConfigKey("chunk.overlap_chars")
  Integer overlapChars;

  @Option(
      names = "--tokenizer",
      paramLabel = "default|PATH",
      description = "'default' (all-MiniLM-L6-v2, in the jar) or a HuggingFace tokenizer.json.")
  @ConfigKey("chunk.tokenizer")
  String tokenizer;

  @Option(names = "--corpus", paramLabel = "NAME", description = "Chunk only this corpus.")
  @ConfigKey("chunk.corpus")
  String corpus;

  public ChunkCommand() {
    super(ChunkJob.NAME, run -> new ChunkJob(run).run());
  }
}
