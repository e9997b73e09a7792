package io.icebergdoris.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** Doris's UPDATE ... FROM split at its top-level keywords; every other statement left to Spark. */
class UpdateFromTextTest {

  /** The text with its blanks collapsed, to compare the pieces without their padding. */
  private static String squeezed(String text) {
    return text == null ? null : text.trim().replaceAll("\\s+", " ");
  }

  @Test
  void splitsDorisRegressionStatement() {
    // regression-test/suites/update/test_update_unique.groovy (complex_update)
    UpdateFromText text = UpdateFromText.of("update t1 set t1.c1 = t2.c1, t1.c3 = t2.c3 * 100 from t2 inner join t3 "
        + "on t2.id = t3.id where t1.id = t2.id;");
    assertEquals("update t1 set t1.c1 = t2.c1, t1.c3 = t2.c3 * 100 where t1.id = t2.id", squeezed(text.update()));
    assertEquals("SELECT * FROM t2 inner join t3 on t2.id = t3.id", squeezed(text.relations()));
    assertNull(text.explain());
  }

  @Test
  void piecesKeepTheStatementsOffsets() {
    String sql = "UPDATE t SET v = s.v\nFROM s\nWHERE t.k = s.k";
    UpdateFromText text = UpdateFromText.of(sql);
    assertEquals(sql.length(), text.update().length());
    assertEquals(sql.indexOf("WHERE"), text.update().indexOf("WHERE"));
    assertEquals(sql.indexOf(" s\nWHERE"), text.relations().indexOf(" s\n"));
    assertEquals(sql.length(), text.relations().length());
    assertEquals("SELECT * FROM", text.relations().substring(0, 13));
  }

  @Test
  void keywordsInsideQuotesParenthesesAndCommentsDoNotCount() {
    UpdateFromText text = UpdateFromText.of("UPDATE t SET v = 'a from b', w = (SELECT max(x) FROM u WHERE u.k = 1), "
        + "`from` = 1 /* FROM c WHERE */ -- from d\nFROM s WHERE t.k = s.k AND s.note = 'where'");
    assertEquals("UPDATE t SET v = 'a from b', w = (SELECT max(x) FROM u WHERE u.k = 1), `from` = 1 /* FROM c WHERE */ "
        + "-- from d WHERE t.k = s.k AND s.note = 'where'", squeezed(text.update()));
    assertEquals("SELECT * FROM s", squeezed(text.relations()));
  }

  @Test
  void withClauseIsAPieceOfItsOwn() {
    UpdateFromText text = UpdateFromText.of("WITH c AS (SELECT id FROM t3) UPDATE t1 AS a SET c1 = t2.c1 FROM t2 JOIN c "
        + "ON t2.id = c.id WHERE a.id = t2.id");
    assertEquals("UPDATE t1 AS a SET c1 = t2.c1 WHERE a.id = t2.id", squeezed(text.update()));
    assertEquals("SELECT * FROM t2 JOIN c ON t2.id = c.id", squeezed(text.relations()));
    assertEquals("WITH c AS (SELECT id FROM t3) SELECT 1", squeezed(text.cte()));
  }

  @Test
  void withClauseTakesAPlainUpdateToo() {
    // Doris: `cte? UPDATE ... fromClause? whereClause?`; Spark 3.5 would hide the UPDATE under the WITH.
    UpdateFromText text = UpdateFromText.of("WITH c AS (SELECT 1 AS id) UPDATE t SET v = 2 WHERE id IN (SELECT id FROM c)");
    assertEquals("UPDATE t SET v = 2 WHERE id IN (SELECT id FROM c)", squeezed(text.update()));
    assertNull(text.relations());
    assertEquals("WITH c AS (SELECT 1 AS id) SELECT 1", squeezed(text.cte()));
  }

  @Test
  void explainHeadIsKept() {
    UpdateFromText text = UpdateFromText.of("EXPLAIN EXTENDED UPDATE t SET v = s.v FROM s");
    assertEquals("EXPLAIN EXTENDED SELECT 1", text.explain());
    assertEquals("UPDATE t SET v = s.v", squeezed(text.update()));
    assertEquals("SELECT * FROM s", squeezed(text.relations()));
  }

  @Test
  void otherStatementsAreLeftToSpark() {
    assertNull(UpdateFromText.of("UPDATE t SET v = 1 WHERE k = 2"));
    assertNull(UpdateFromText.of("UPDATE t SET v = (SELECT max(x) FROM u) WHERE k = 2"));
    assertNull(UpdateFromText.of("SELECT * FROM t WHERE k = 1"));
    assertNull(UpdateFromText.of("WITH c AS (SELECT 1) SELECT * FROM c"));
    assertNull(UpdateFromText.of("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v"));
    assertNull(UpdateFromText.of("CALL doris.load(table => 't', query => 'UPDATE t SET v = 1 FROM s')"));
    assertNull(UpdateFromText.of("-- UPDATE t SET v = 1 FROM s\nSELECT 1"));
    assertNull(UpdateFromText.of("EXPLAIN SELECT * FROM update_log"));
    assertNull(UpdateFromText.of(""));
  }
}
