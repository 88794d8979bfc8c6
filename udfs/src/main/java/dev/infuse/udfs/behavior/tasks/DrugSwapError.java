package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.behavior.GoldTarget;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code error_drug_swap} v1: replaces one drug name with a look-alike/sound-alike partner (ISMP's
 * classic confusions), or multiplies one dose by ten: the two prescribing errors readers most often
 * miss. Spans that are part of a finding are left alone.
 */
final class DrugSwapError implements Perturbation {
  static final String ID = "error_drug_swap";

  private static final String[][] PAIRS = {
    {"hydralazine", "hydroxyzine"},
    {"metformin", "metronidazole"},
    {"tramadol", "trazodone"},
    {"losartan", "lovastatin"},
    {"amlodipine", "amiloride"},
    {"glipizide", "glyburide"},
    {"clonidine", "clonazepam"},
    {"lamotrigine", "lamivudine"},
    {"celebrex", "celexa"},
    {"zyrtec", "zantac"},
    {"metoprolol", "misoprostol"},
    {"atorvastatin", "atomoxetine"},
    {"gabapentin", "guanfacine"},
    {"albuterol", "atenolol"},
    {"ibuprofen", "methotrexate"},
    {"prednisone", "pravastatin"},
    {"aspirin", "warfarin"},
    {"furosemide", "famotidine"},
    {"lasix", "losec"},
    {"tylenol", "toradol"},
    {"omeprazole", "olanzapine"},
    {"sertraline", "selegiline"},
    {"levothyroxine", "liothyronine"},
    {"lisinopril", "lithium"},
    {"insulin", "heparin"},
    {"amoxicillin", "azithromycin"},
  };
  private static final Map<String, String> PARTNER = partners();
  private static final Pattern DRUG =
      Pattern.compile(
          "\\b(" + String.join("|", PARTNER.keySet()) + ")\\b", Pattern.CASE_INSENSITIVE);
  private static final Pattern DOSE =
      Pattern.compile(
          "\\b(" + NumberText.NUMBER.pattern() + ")(?=\\s?(?:mg|mcg|milligrams?|units?)\\b)",
          Pattern.CASE_INSENSITIVE);

  /** One place a swap could be made. */
  private record Spot(int line, int start, int end, String from, String to, String item) {}

  @Override
  public String id() {
    return ID;
  }

  @Override
  public int version() {
    return 1;
  }

  @Override
  public Optional<Perturbed> apply(ClinicalCase c, SplittableRandom random) {
    List<Spot> spots = new ArrayList<>();
    for (int i = 0; i < c.lines().size(); i++) {
      String text = c.lines().get(i).text();
      Matcher drug = DRUG.matcher(text);
      while (drug.find()) {
        String name = drug.group(1);
        String to = sameCase(PARTNER.get(name.toLowerCase(Locale.ROOT)), name);
        spots.add(new Spot(i, drug.start(1), drug.end(1), name, to, name.toLowerCase(Locale.ROOT)));
      }
      Matcher dose = DOSE.matcher(text);
      while (dose.find()) {
        String to = NumberText.scaled(dose.group(1), 10);
        spots.add(new Spot(i, dose.start(1), dose.end(1), dose.group(1), to, "dose"));
      }
    }
    List<Spot> free = spots.stream().filter(s -> touchesNoFinding(c, s)).toList();
    if (free.isEmpty()) {
      return Optional.empty();
    }
    Spot s = free.get(random.nextInt(free.size()));
    ClinicalCase changed = c.replace(s.line(), s.start(), s.end(), s.to());
    Map<String, String> change = Edits.replace(s.line(), s.start(), s.end(), s.from(), s.to());
    change.put("item", s.item());
    GoldTarget gold =
        GoldTarget.error(
            -1, changed.lines().get(s.line()).text(), c.lines().get(s.line()).text(), s.item());
    return Optional.of(new Perturbed(changed, gold, change));
  }

  private static boolean touchesNoFinding(ClinicalCase c, Spot s) {
    return c.findingsOn(s.line()).stream()
        .noneMatch(f -> f.start() < s.end() && s.start() < f.end());
  }

  private static String sameCase(String partner, String like) {
    if (like.equals(like.toUpperCase(Locale.ROOT))) {
      return partner.toUpperCase(Locale.ROOT);
    }
    return Character.isUpperCase(like.charAt(0))
        ? Character.toUpperCase(partner.charAt(0)) + partner.substring(1)
        : partner;
  }

  private static Map<String, String> partners() {
    Map<String, String> partners = new LinkedHashMap<>();
    for (String[] pair : PAIRS) {
      partners.put(pair[0], pair[1]);
      partners.put(pair[1], pair[0]);
    }
    return partners;
  }
}
