package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The index's answers on the wire: the fields Python's dataclasses read, by the same names. */
class AnswersTest {

  private static final Path WIRE_PY = Path.of("..", "iceberg_doris", "engine", "key_index", "wire.py");

  @Test
  void aLookupAnswerIsWrittenWithSnakeCaseNames() throws IOException {
    Answers.LookupAnswer answer = new Answers.LookupAnswer(
        3, 1, 2, List.of("s3://b/f.parquet"), List.of(), true,
        List.of(Answers.FilePositions.of("f1", new byte[] {1, 2}, new byte[0])));
    JsonNode json = new ObjectMapper().readTree(Wire.json(answer));
    assertEquals(
        List.of("probed_files", "built_files", "read_files", "unindexable", "problems", "one_live_row_per_key", "hits"),
        names(json));
    assertEquals(3, json.get("probed_files").asInt());
    assertEquals(true, json.get("one_live_row_per_key").asBoolean());
    JsonNode hit = json.get("hits").get(0);
    assertEquals(List.of("location", "upserts", "deletes"), names(hit));
    assertEquals("AQI=", hit.get("upserts").asText());
    assertEquals("", hit.get("deletes").asText());
  }

  @Test
  void everyAnswerHasTheFieldsOfItsPythonDataclass() throws IOException {
    Map<String, List<String>> dataclasses = dataclassFields(Files.readString(WIRE_PY));
    for (Class<?> answer : Answers.class.getDeclaredClasses()) {
      List<String> components = new ArrayList<>();
      Arrays.stream(answer.getRecordComponents()).forEach(c -> components.add(snakeCase(c.getName())));
      assertEquals(components, dataclasses.get(answer.getSimpleName()), answer.getSimpleName() + " in wire.py");
    }
  }

  private static List<String> names(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static String snakeCase(String name) {
    return name.replaceAll("([A-Z])", "_$1").toLowerCase();
  }

  /** Each dataclass of wire.py and its annotated fields, in order. */
  private static Map<String, List<String>> dataclassFields(String source) {
    Map<String, List<String>> classes = new LinkedHashMap<>();
    Matcher header = Pattern.compile("(?m)^class (\\w+):\\n").matcher(source);
    Pattern field = Pattern.compile("(?m)^    (\\w+): ");
    while (header.find()) {
      int end = source.indexOf("\n\n\n", header.end());
      String body = source.substring(header.end(), end < 0 ? source.length() : end);
      List<String> fields = new ArrayList<>();
      Matcher found = field.matcher(body);
      while (found.find()) {
        fields.add(found.group(1));
      }
      classes.put(header.group(1), fields);
    }
    return classes;
  }
}
