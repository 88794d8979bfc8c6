package dev.infuse.udfs.facts;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.udfs.common.Keys;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A deterministic corpus of fictional people for a controlled learning experiment in the style of
 * Allen-Zhu and Li's "Physics of Language Models, Part 3.1": each person has six attributes, a
 * biography written in phrasings chosen by seed, and one 4-option question per attribute whose
 * distractors are other values of the same attribute. The first half of the people (by index) are
 * {@code trained} (their QA may be trained on), the rest {@code held_out} (their questions are only
 * evaluated); every question carries that subset.
 *
 * <p>Every draw comes from a {@link SplittableRandom} seeded by sha256(seed, what is drawn), never
 * from shared state: the same (people, seed) gives the same corpus byte for byte, and person i is
 * the same person whatever the corpus size. Written as QuALITY JSON Lines ({@link #jsonLines}), one
 * article per person, so {@code ingest --format quality} reads it.
 */
public final class FactsCorpus {
  /** The article id prefix: person i is {@code facts-%04d}, so ids sort by index. */
  public static final String ID_PREFIX = "facts-";

  public static final String TRAINED = "trained";
  public static final String HELD_OUT = "held_out";

  /** The file {@code make-facts} writes; its name gives split {@code dev}. */
  public static final String FILE_NAME = "facts_dev.jsonl";

  public static final String LICENSE = "CC0-1.0";

  private static final List<String> FIRST_NAMES =
      List.of(
          "Aldren",
          "Brisa",
          "Corvin",
          "Delphine",
          "Emeric",
          "Fenna",
          "Galen",
          "Hesper",
          "Isolde",
          "Jorah",
          "Kestrel",
          "Liesel",
          "Marek",
          "Nerys",
          "Oswin",
          "Perrin",
          "Quilla",
          "Rowan",
          "Saoirse",
          "Tobin",
          "Ulla",
          "Varick",
          "Wren",
          "Xanthe",
          "Yorick",
          "Zelda",
          "Anselm",
          "Briony",
          "Caspian",
          "Dagny",
          "Evander",
          "Fiora");
  private static final List<String> LAST_NAMES =
      List.of(
          "Ashcombe",
          "Blackwood",
          "Calloway",
          "Drummond",
          "Everleigh",
          "Fairweather",
          "Greaves",
          "Holloway",
          "Ingram",
          "Jessup",
          "Kilbride",
          "Lockhart",
          "Marchetti",
          "Northcott",
          "Oakhurst",
          "Pemberton",
          "Quennell",
          "Radcliffe",
          "Somerville",
          "Thornbury",
          "Underhill",
          "Vandermeer",
          "Whitlock",
          "Yardley",
          "Zellweger",
          "Abernathy",
          "Brightwater",
          "Cresswell",
          "Dunmore",
          "Ellsworth",
          "Fenwick",
          "Galloway");
  private static final List<String> CITIES =
      List.of(
          "Marrowfield",
          "Eastbrook",
          "Kellmoor",
          "Draventon",
          "Saltmere",
          "Ostrava Vale",
          "Pinegate",
          "Harrowby",
          "Lunport",
          "Calder Ridge",
          "Wexhaven",
          "Brindlemouth",
          "Torvik",
          "Ambermoor",
          "Stillwater Bay",
          "Redcliff",
          "Norhaven",
          "Glenvard",
          "Quarry Hill",
          "Ashford Cross",
          "Velmont",
          "Coldharbour",
          "Sunmere",
          "Ironvale");
  private static final List<String> UNIVERSITIES =
      List.of(
          "Halvorsen University",
          "the University of Marrowfield",
          "Kingsley Institute of Technology",
          "Eastbrook College",
          "Ravensworth University",
          "the Saltmere Polytechnic",
          "Draventon State University",
          "Lindqvist University",
          "the Northcott Academy",
          "Bellamy College",
          "Thornfield University",
          "the Pinegate Institute",
          "Carrow University",
          "Wexhaven University",
          "the Royal College of Lunport",
          "Osterby University");
  private static final List<String> MAJORS =
      List.of(
          "marine biology",
          "economics",
          "mechanical engineering",
          "medieval history",
          "linguistics",
          "astronomy",
          "organic chemistry",
          "architecture",
          "philosophy",
          "computer science",
          "geology",
          "music theory",
          "public health",
          "mathematics",
          "journalism",
          "agricultural science");
  private static final List<String> EMPLOYERS =
      List.of(
          "Corvane Systems",
          "Bluefin Analytics",
          "Hartwell Foods",
          "Meridian Rail",
          "Solstice Pharmaceuticals",
          "Greyhaven Shipping",
          "Lumen Textiles",
          "Northwind Energy",
          "Pallister Books",
          "Quartzline Optics",
          "Redwater Mining",
          "Silverleaf Insurance",
          "Tidewell Robotics",
          "Umbra Studios",
          "Vantor Aerospace",
          "Willowmere Bank",
          "Kestrel Labs",
          "Oakridge Ceramics",
          "Brightforge Steel",
          "Cinderpath Games");
  private static final List<String> MONTHS =
      List.of(
          "January",
          "February",
          "March",
          "April",
          "May",
          "June",
          "July",
          "August",
          "September",
          "October",
          "November",
          "December");

  /** Every name can be drawn once: the most people a corpus can hold. */
  public static final int MAX_PEOPLE = FIRST_NAMES.size() * LAST_NAMES.size();

  /** The six attributes, each with its question and the biography sentences that state it. */
  public enum Attribute {
    BIRTH_DATE(
        "birth_date",
        "What is the birth date of %s?",
        List.of("%s was born on %s.", "%s's birthday is %s.", "%s came into the world on %s.")),
    BIRTH_CITY(
        "birth_city",
        "In which city was %s born?",
        List.of(
            "%s was born in %s.",
            "%s's hometown is %s.", "%s grew up in %s, the city of %s birth.")),
    UNIVERSITY(
        "university",
        "Which university did %s attend?",
        List.of("%s studied at %s.", "%s graduated from %s.", "%s received an education at %s.")),
    MAJOR(
        "major",
        "What did %s study?",
        List.of("%s majored in %s.", "%s earned a degree in %s.", "%s completed studies in %s.")),
    EMPLOYER(
        "employer",
        "Which company employs %s?",
        List.of("%s works for %s.", "%s is employed by %s.", "%s has a job at %s.")),
    EMPLOYER_CITY(
        "employer_city",
        "In which city does %s work?",
        List.of("%s works in %s.", "%s's office is in %s.", "%s commutes to an office in %s."));

    private final String id;
    private final String question;
    private final List<String> phrasings;

    Attribute(String id, String question, List<String> phrasings) {
      this.id = id;
      this.question = question;
      this.phrasings = phrasings;
    }

    public String id() {
      return id;
    }

    /** How many phrasings a biography chooses from for this attribute. */
    public int phrasings() {
      return phrasings.size();
    }

    /** The values this attribute takes: distractors come from the same list. */
    List<String> pool() {
      return switch (this) {
        case BIRTH_DATE -> List.of();
        case BIRTH_CITY, EMPLOYER_CITY -> CITIES;
        case UNIVERSITY -> UNIVERSITIES;
        case MAJOR -> MAJORS;
        case EMPLOYER -> EMPLOYERS;
      };
    }
  }

  /** A 4-option question; {@code goldIndex} is 0-based. */
  public record Question(
      String id, Attribute attribute, String text, List<String> options, int goldIndex) {
    public String gold() {
      return options.get(goldIndex);
    }
  }

  /** A fictional person: id, name, split, attribute values, biography and questions. */
  public record Person(
      int index,
      String id,
      String name,
      boolean trained,
      Map<Attribute, String> values,
      String biography,
      List<Question> questions) {
    public String subset() {
      return trained ? TRAINED : HELD_OUT;
    }
  }

  private static final int OPTIONS = 4;

  private final long seed;
  private final List<Person> people;

  private FactsCorpus(long seed, List<Person> people) {
    this.seed = seed;
    this.people = people;
  }

  /**
   * Generates {@code people} people (2 to {@link #MAX_PEOPLE}) from {@code seed}.
   *
   * @throws IllegalArgumentException naming {@code people} when it is out of range
   */
  public static FactsCorpus generate(int people, long seed) {
    if (people < 2 || people > MAX_PEOPLE) {
      throw new IllegalArgumentException(
          "people: got " + people + ", expected 2.." + MAX_PEOPLE + " (one of each name at most)");
    }
    List<String> names = names(people, seed);
    List<Person> list = new ArrayList<>(people);
    int trained = people / 2;
    for (int i = 0; i < people; i++) {
      list.add(person(i, names.get(i), i < trained, seed));
    }
    return new FactsCorpus(seed, List.copyOf(list));
  }

  public long seed() {
    return seed;
  }

  public List<Person> people() {
    return people;
  }

  /** Distinct names: person i takes the i-th of a seeded shuffle of every first x last name. */
  private static List<String> names(int people, long seed) {
    List<String> all = new ArrayList<>(MAX_PEOPLE);
    for (String first : FIRST_NAMES) {
      for (String last : LAST_NAMES) {
        all.add(first + " " + last);
      }
    }
    SplittableRandom random = random(seed, "names");
    for (int i = all.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      all.set(j, all.set(i, all.get(j)));
    }
    return all.subList(0, people);
  }

  private static Person person(int index, String name, boolean trained, long seed) {
    String id = String.format(Locale.ROOT, "%s%04d", ID_PREFIX, index);
    Map<Attribute, String> values = new EnumMap<>(Attribute.class);
    for (Attribute attribute : Attribute.values()) {
      values.put(attribute, draw(attribute, random(seed, id, attribute.id(), "value")));
    }
    // Employer and employer city are drawn independently: nothing links one fact to another.
    List<String> sentences = new ArrayList<>();
    String pronoun = random(seed, id, "pronoun").nextBoolean() ? "her" : "his";
    for (Attribute attribute : Attribute.values()) {
      SplittableRandom random = random(seed, id, attribute.id(), "phrasing");
      String phrasing = attribute.phrasings.get(random.nextInt(attribute.phrasings.size()));
      String sentence =
          attribute == Attribute.BIRTH_CITY && phrasing.contains("city of %s birth")
              ? String.format(Locale.ROOT, phrasing, name, values.get(attribute), pronoun)
              : String.format(Locale.ROOT, phrasing, name, values.get(attribute));
      sentences.add(sentence);
    }
    // The birth facts lead, the rest follow in a seeded order.
    List<String> rest = new ArrayList<>(sentences.subList(2, sentences.size()));
    SplittableRandom order = random(seed, id, "order");
    for (int i = rest.size() - 1; i > 0; i--) {
      int j = order.nextInt(i + 1);
      rest.set(j, rest.set(i, rest.get(j)));
    }
    List<String> ordered = new ArrayList<>(sentences.subList(0, 2));
    ordered.addAll(rest);
    String biography = String.join(" ", ordered);
    List<Question> questions = new ArrayList<>();
    for (Attribute attribute : Attribute.values()) {
      questions.add(question(id, name, attribute, values.get(attribute), seed));
    }
    return new Person(
        index, id, name, trained, Map.copyOf(values), biography, List.copyOf(questions));
  }

  private static String draw(Attribute attribute, SplittableRandom random) {
    if (attribute == Attribute.BIRTH_DATE) {
      return MONTHS.get(random.nextInt(MONTHS.size()))
          + " "
          + (1 + random.nextInt(28))
          + ", "
          + (1950 + random.nextInt(50));
    }
    List<String> pool = attribute.pool();
    return pool.get(random.nextInt(pool.size()));
  }

  private static Question question(
      String personId, String name, Attribute attribute, String gold, long seed) {
    SplittableRandom random = random(seed, personId, attribute.id(), "options");
    Set<String> options = new LinkedHashSet<>();
    options.add(gold);
    while (options.size() < OPTIONS) {
      options.add(draw(attribute, random));
    }
    List<String> shuffled = new ArrayList<>(options);
    for (int i = shuffled.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      shuffled.set(j, shuffled.set(i, shuffled.get(j)));
    }
    return new Question(
        personId + "_" + attribute.id(),
        attribute,
        String.format(Locale.ROOT, attribute.question, name),
        List.copyOf(shuffled),
        shuffled.indexOf(gold));
  }

  private static SplittableRandom random(long seed, String... parts) {
    String[] all = new String[parts.length + 1];
    all[0] = Long.toString(seed);
    System.arraycopy(parts, 0, all, 1, parts.length);
    return new SplittableRandom(
        ByteBuffer.wrap(
                Keys.sha256(
                    String.join("\u001f", all).getBytes(java.nio.charset.StandardCharsets.UTF_8)))
            .getLong());
  }

  /**
   * One QuALITY set per person, in index order: {@code article_id} the person's id, the title their
   * name, the biography as the article, each question with its 1-based {@code gold_label} and
   * {@code subsets} [trained] or [held_out].
   */
  public List<String> jsonLines() {
    ObjectMapper json = new ObjectMapper();
    List<String> lines = new ArrayList<>(people.size());
    for (Person person : people) {
      ObjectNode set = json.createObjectNode();
      set.put("article_id", person.id());
      set.put("set_unique_id", person.id() + "_facts");
      set.put("title", person.name());
      set.put("article", person.biography());
      set.put("source", "infuse make-facts, seed " + seed);
      set.put("license", LICENSE);
      ArrayNode questions = set.putArray("questions");
      for (Question question : person.questions()) {
        ObjectNode q = questions.addObject();
        q.put("question_unique_id", question.id());
        q.put("question", question.text());
        ArrayNode options = q.putArray("options");
        question.options().forEach(options::add);
        q.put("gold_label", question.goldIndex() + 1);
        q.putArray("subsets").add(person.subset());
      }
      try {
        lines.add(json.writeValueAsString(set));
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
    return lines;
  }
}
