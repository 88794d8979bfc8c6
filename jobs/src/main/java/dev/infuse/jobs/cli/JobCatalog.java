package dev.infuse.jobs.cli;

import dev.infuse.jobs.answer.AnswerConfig;
import dev.infuse.jobs.behavior.BehaviorConfig;
import dev.infuse.jobs.chunk.ChunkConfig;
import dev.infuse.jobs.chunk.RagConfig;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.config.SectionType;
import dev.infuse.jobs.demo.DemoConfig;
import dev.infuse.jobs.evaluate.EvaluateConfig;
import dev.infuse.jobs.facts.FactsConfig;
import dev.infuse.jobs.generate.GenDocsConfig;
import dev.infuse.jobs.generate.GenQaConfig;
import dev.infuse.jobs.ingest.IngestConfig;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.maporl.DiscussConfig;
import dev.infuse.jobs.maporl.MaporlConfig;
import dev.infuse.jobs.maporl.RewardConfig;
import dev.infuse.jobs.maporl.TrainVerifierConfig;
import dev.infuse.jobs.report.ReportConfig;
import dev.infuse.jobs.retrieve.IndexConfig;
import dev.infuse.jobs.retrieve.RetrieveConfig;
import dev.infuse.jobs.score.ScoreConfig;
import dev.infuse.jobs.shards.ShardsConfig;
import dev.infuse.jobs.train.TrainConfig;
import dev.infuse.udfs.embed.EmbedderSpec;
import java.util.List;
import picocli.CommandLine;

/**
 * Every job Infuse has, in the two lists a new job joins: its command, and its config section (the
 * record in its own package that a top-level key of the YAML binds to). {@code Main} builds the CLI
 * from {@link #COMMANDS}; every config is loaded with {@link #SECTIONS}.
 */
public final class JobCatalog {
  private JobCatalog() {}

  /** The commands, in the order {@code infuse --help} lists them: the pipeline's order. */
  public static final List<Class<?>> COMMANDS =
      List.of(
          IngestCommand.class,
          ChunkCommand.class,
          EmbedCommand.class,
          GenQaCommand.class,
          GenDocsCommand.class,
          TrainCommand.class,
          BuildShardsCommand.class,
          IndexCommand.class,
          RetrieveCommand.class,
          AnswerCommand.class,
          ScoreCommand.class,
          FitScalingCommand.class,
          ReportCommand.class,
          EvaluateCommand.class,
          DiscussCommand.class,
          RewardCommand.class,
          MaporlCommand.class,
          TrainVerifierCommand.class,
          BuildBehaviorTasksCommand.class,
          MineHardCommand.class,
          SftDataCommand.class,
          SqlCommand.class,
          ValidateCommand.class,
          DemoCommand.class,
          MakeFactsCommand.class,
          FactsExperimentCommand.class);

  /** The jobs' config sections, after {@code warehouse}, {@code run} and {@code spark}. */
  public static final List<SectionType<?>> SECTIONS =
      List.of(
          SectionType.of("ingest", IngestConfig.class),
          SectionType.of("chunk", ChunkConfig.class),
          SectionType.of("embed", EmbedderSpec.class, EmbedderSpec::problems),
          SectionType.of("llm", LlmConfig.class),
          SectionType.of("gen_qa", GenQaConfig.class),
          SectionType.of("gen_docs", GenDocsConfig.class),
          SectionType.of("train", TrainConfig.class),
          SectionType.of("shards", ShardsConfig.class),
          SectionType.of("demo", DemoConfig.class),
          SectionType.of("facts", FactsConfig.class),
          SectionType.of("report", ReportConfig.class),
          SectionType.of("score", ScoreConfig.class),
          SectionType.of("answer", AnswerConfig.class),
          SectionType.of("rag", RagConfig.class),
          SectionType.of("index", IndexConfig.class),
          SectionType.of("retrieve", RetrieveConfig.class),
          SectionType.of("evaluate", EvaluateConfig.class),
          SectionType.of("discuss", DiscussConfig.class),
          SectionType.of("reward", RewardConfig.class),
          SectionType.of("maporl", MaporlConfig.class),
          SectionType.of("train_verifier", TrainVerifierConfig.class),
          SectionType.of("behavior", BehaviorConfig.class));

  /**
   * Ends the help of every option bound to a config key with the key and its default from {@code
   * defaults.yaml}, in {@code commandLine} and its subcommands.
   */
  public static void describeOptions(CommandLine commandLine) {
    ConfigOptions.describe(commandLine, configLoader().tree());
  }

  /** The built-in defaults of every section, to layer files, {@code --set} and flags over. */
  public static ConfigLoader configLoader() {
    return ConfigLoader.withDefaults(SECTIONS);
  }
}
