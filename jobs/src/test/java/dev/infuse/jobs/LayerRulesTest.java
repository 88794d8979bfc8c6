package dev.infuse.jobs;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The layers of docs/ARCHITECTURE.md, enforced: the CLI on top, then the jobs, then the run life
 * cycle and I/O, then the per-record logic in udfs. A rule that fails names the class and the
 * dependency that breaks it.
 */
class LayerRulesTest {
  /** Main code only: tests may reach across layers to set things up. */
  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.infuse");

  /** One package per job, or per group of jobs that share a table (index and retrieve). */
  private static final String[] JOBS = {
    "dev.infuse.jobs.answer..",
    "dev.infuse.jobs.behavior..",
    "dev.infuse.jobs.chunk..",
    "dev.infuse.jobs.demo..",
    "dev.infuse.jobs.embed..",
    "dev.infuse.jobs.evaluate..",
    "dev.infuse.jobs.facts..",
    "dev.infuse.jobs.generate..",
    "dev.infuse.jobs.ingest..",
    "dev.infuse.jobs.maporl..",
    "dev.infuse.jobs.report..",
    "dev.infuse.jobs.retrieve..",
    "dev.infuse.jobs.score..",
    "dev.infuse.jobs.shards..",
    "dev.infuse.jobs.sql..",
    "dev.infuse.jobs.train..",
    "dev.infuse.jobs.validate.."
  };

  /**
   * What every job stands on: the run life cycle, config, contracts, I/O, Spark and the LLM layer.
   */
  private static final String[] PLATFORM = {
    "dev.infuse.jobs.config..",
    "dev.infuse.jobs.contract..",
    "dev.infuse.jobs.io..",
    "dev.infuse.jobs.llm..",
    "dev.infuse.jobs.run..",
    "dev.infuse.jobs.spark.."
  };

  @Test
  void everyPackageIsInALayer() {
    List<String> known = new ArrayList<>(List.of("dev.infuse.jobs", "dev.infuse.jobs.cli.."));
    known.addAll(List.of(JOBS));
    known.addAll(List.of(PLATFORM));
    classes()
        .that()
        .resideInAPackage("dev.infuse.jobs..")
        .should()
        .resideInAnyPackage(known.toArray(String[]::new))
        .because("a new package joins a layer here, so the rules below cover it")
        .check(CLASSES);
  }

  @Test
  void noJobImportsTheCli() {
    noClasses()
        .that()
        .resideOutsideOfPackages("dev.infuse.jobs.cli..", "dev.infuse.jobs")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.infuse.jobs.cli..")
        .because("cli/ only binds flags and maps outcomes to exit codes; jobs run without it")
        .check(CLASSES);
  }

  @Test
  void udfsKnowsNothingOfJobs() {
    noClasses()
        .that()
        .resideInAPackage("dev.infuse.udfs..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.infuse.jobs..")
        .because("udfs is per-record logic in plain Java, tested without Spark or the jobs")
        .check(CLASSES);
  }

  @Test
  void thePackagesOfJobsHaveNoCycle() {
    slices().matching("dev.infuse.jobs.(*)..").should().beFreeOfCycles().check(CLASSES);
  }

  @Test
  void eachLayerUsesOnlyTheLayersBelowIt() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("Entry")
        .definedBy("dev.infuse.jobs")
        .layer("CLI")
        .definedBy("dev.infuse.jobs.cli..")
        .layer("Jobs")
        .definedBy(JOBS)
        .layer("Platform")
        .definedBy(PLATFORM)
        .layer("Udfs")
        .definedBy("dev.infuse.udfs..")
        .whereLayer("Entry")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("CLI")
        .mayOnlyBeAccessedByLayers("Entry")
        .whereLayer("Jobs")
        .mayOnlyBeAccessedByLayers("CLI")
        .whereLayer("Platform")
        .mayOnlyBeAccessedByLayers("Entry", "CLI", "Jobs")
        .whereLayer("Udfs")
        .mayOnlyBeAccessedByLayers("Platform", "Jobs", "CLI", "Entry")
        .check(CLASSES);
  }
}
