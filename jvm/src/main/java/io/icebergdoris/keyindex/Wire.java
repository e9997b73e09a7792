package io.icebergdoris.keyindex;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import java.util.Base64;
import java.util.function.Predicate;

/**
 * The JSON the index exchanges with Python ({@code iceberg_doris/engine/key_index/wire.py}): one
 * py4j transfer per request or answer, typed at both ends (requests are parsed strictly, answers
 * are read into dataclasses). Bitmaps travel as base64 text of portable 64-bit Roaring bitmaps
 * (what pyroaring's {@code BitMap64.deserialize} reads); py4j itself sends byte arrays as base64.
 */
final class Wire {
  private static final ObjectMapper JSON = new ObjectMapper();
  // Answers are records whose components Python reads by their snake-case names.
  private static final ObjectMapper ANSWERS =
      new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

  private Wire() {}

  static String json(Record answer) {
    try {
      return ANSWERS.writeValueAsString(answer);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("could not encode a key index answer", e);
    }
  }

  static JsonNode parse(String json) {
    try {
      JsonNode node = JSON.readTree(json);
      if (node == null || !node.isObject()) {
        throw new IllegalArgumentException("a key index request is not a JSON object: " + json);
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("a key index request is not JSON: " + e.getOriginalMessage(), e);
    }
  }

  static JsonNode parseArray(String json) {
    try {
      JsonNode node = JSON.readTree(json);
      if (node == null || !node.isArray()) {
        throw new IllegalArgumentException("a key index request is not a JSON array: " + json);
      }
      for (JsonNode item : node) {
        if (!item.isTextual()) {
          throw new IllegalArgumentException("a key index request's column is not text: " + item);
        }
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("a key index request is not JSON: " + e.getOriginalMessage(), e);
    }
  }

  static JsonNode required(JsonNode node, String field, Predicate<JsonNode> valid) {
    JsonNode value = node.get(field);
    if (value == null || !valid.test(value)) {
      throw new IllegalArgumentException("a key index request's " + field + " is missing or of the wrong type: " + value);
    }
    return value;
  }

  static String base64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }
}
