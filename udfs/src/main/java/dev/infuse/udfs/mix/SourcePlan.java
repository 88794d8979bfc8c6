package dev.infuse.udfs.mix;

/**
 * What a mixture takes from one source.
 *
 * @param source the source name
 * @param share its configured share of the total
 * @param availableTokens tokens the source has (after dedup and decontamination)
 * @param budgetTokens tokens the mixture wants from it
 * @param epochs how many passes over the source the budget needs, capped at max_epochs: 0.5 samples
 *     half the rows, 2.5 repeats every row twice and half of them a third time
 * @param shortfallTokens budget the source cannot fill even at max_epochs; 0 when it can
 */
public record SourcePlan(
    String source,
    double share,
    long availableTokens,
    long budgetTokens,
    double epochs,
    long shortfallTokens) {}
