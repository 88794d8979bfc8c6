package dev.infuse.udfs.behavior.tasks;

import java.util.Map;
import java.util.TreeMap;

/** Small cases and rows in the shapes ingest writes them, for the behaviour task tests. */
final class Fixtures {
  private Fixtures() {}

  static final String OSCE =
      "{\"Objective_for_Doctor\":\"Evaluate chest pain.\","
          + "\"Patient_Actor\":{\"Demographics\":\"58-year-old man\","
          + "\"History\":\"Chest pain for two hours. Takes metformin 500 mg twice daily.\","
          + "\"Symptoms\":{\"Primary_Symptom\":\"Chest pain\",\"Secondary_Symptoms\":[\"Sweating\",\"Nausea\"]}},"
          + "\"Physical_Examination_Findings\":{\"Vital_Signs\":{\"Temperature\":\"36.8°C (98°F)\","
          + "\"Blood_Pressure\":\"150/90 mmHg\",\"Heart_Rate\":\"104 bpm\"},"
          + "\"Cardiac\":\"Regular rhythm, no murmurs.\"},"
          + "\"Test_Results\":{\"ECG\":{\"Findings\":\"ST elevation in leads II, III and aVF.\"},"
          + "\"Troponin_I\":\"2.3 ng/mL\",\"Basic_Metabolic_Panel\":{\"Sodium\":\"139 mmol/L\","
          + "\"Potassium\":\"4.1 mmol/L\"}},"
          + "\"Correct_Diagnosis\":\"Inferior myocardial infarction\"}";

  static final String DIALOGUE =
      "[doctor] hi , how are you feeling today ?\n"
          + "[patient] tired . i take lisinopril 20 mg every morning .\n"
          + "[doctor] your blood pressure is 150/90 today and your heart rate is 88 .\n"
          + "[patient] okay .\n"
          + "[doctor] your potassium was 4.1 last week .";

  static final String ACI_NOTE =
      "CHIEF COMPLAINT\n\nKnee pain.\n\nHISTORY OF PRESENT ILLNESS\n\n"
          + "Mr. Smith is a 60-year-old male. He fell while hiking two weeks ago. "
          + "The swelling started the next day and then got worse. "
          + "He saw Dr. Jones three days ago, who prescribed ibuprofen. "
          + "Today he reports the pain is better.\n\nREVIEW OF SYSTEMS\n\nNegative.";

  static Map<String, String> agentClinicMeta() {
    Map<String, String> meta = new TreeMap<>();
    meta.put("osce_json", OSCE);
    meta.put("correct_diagnosis", "Inferior myocardial infarction");
    return meta;
  }

  static Map<String, String> medecMeta(String flag) {
    Map<String, String> meta = new TreeMap<>();
    meta.put("error_flag", flag);
    meta.put("split", "test");
    meta.put(
        "sentences",
        "0 A 60-year-old man has chest pain.\n1 His ECG shows ST elevation.\n"
            + "2 He is diagnosed with pericarditis.");
    if (flag.equals("1")) {
      meta.put("error_sentence_id", "2");
      meta.put("error_sentence", "He is diagnosed with pericarditis.");
      meta.put("corrected_sentence", "He is diagnosed with myocardial infarction.");
      meta.put("error_type", "diagnosis");
    } else {
      meta.put("error_sentence_id", "-1");
    }
    return meta;
  }

  static Map<String, String> aciMeta(String kind) {
    return new TreeMap<>(Map.of("kind", kind, "encounter_id", "D2N001", "dataset", "virtassist"));
  }
}
