package io.icebergdoris.spark;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeSet;
import org.apache.spark.sql.catalyst.plans.logical.Command;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Statistics;
import org.apache.spark.sql.catalyst.trees.LeafLike;
import org.apache.spark.sql.catalyst.plans.QueryPlan;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.execution.command.LeafRunnableCommand;
import org.apache.spark.sql.execution.command.RunnableCommand;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.types.StructType;
import scala.Enumeration;
import scala.Function1;
import ${scala.indexed.seq};
import scala.collection.immutable.Map;
import ${scala.seq};

/**
 * A Spark statement ({@code INSERT INTO}, {@code INSERT OVERWRITE}, {@code DELETE}, {@code UPDATE},
 * {@code df.writeTo(t).append()}) on a Doris table, run as the Doris procedure that does its work
 * ({@code doris.load}, {@code doris.insert_overwrite}, {@code doris.delete}; see {@link
 * StatementCalls}), on every Spark line: the Scala collection types are the line's ({@code src/line}).
 *
 * <p>Written in Java against Spark's Scala traits, so the trait fields Scala would generate
 * ({@code nodePatterns}) are kept here and the traits' initialisers called from the constructor.
 */
public final class DorisStatement extends LogicalPlan implements LeafRunnableCommand {

  private final String procedure;
  private final DorisTarget target;
  private final String statement;
  private final LogicalPlan rows; // null when the procedure reads no rows (doris.delete)
  private final ObjectNode arguments;
  private final MergeRows merge;
  private final StructType schema;
  private final Seq<Attribute> output;
  private Seq<Enumeration.Value> nodePatterns;

  DorisStatement(String statement, String procedure, DorisTarget target, LogicalPlan rows, ObjectNode arguments) {
    this(statement, procedure, target, rows, arguments, null);
  }

  /** {@code merge}: a MERGE INTO whose rows can be joined to the stored rows of its keys only, or null. */
  DorisStatement(
      String statement, String procedure, DorisTarget target, LogicalPlan rows, ObjectNode arguments, MergeRows merge) {
    this.merge = merge;
    this.statement = statement;
    this.procedure = procedure;
    this.target = target;
    this.rows = rows;
    this.arguments = arguments;
    this.schema = StatementCalls.output(procedure);
    this.output = SparkCompat.seq(new ArrayList<Attribute>(SparkCompat.javaList(DataTypeUtils.toAttributes(schema))));
    initTraits();
  }

  private DorisStatement(DorisStatement other) {
    this.statement = other.statement;
    this.procedure = other.procedure;
    this.target = other.target;
    this.rows = other.rows;
    this.arguments = other.arguments;
    this.merge = other.merge;
    this.schema = other.schema;
    this.output = other.output;
    initTraits();
  }

  private void initTraits() {
    Command.$init$(this);
    RunnableCommand.$init$(this);
    LeafLike.$init$(this);
  }

  @Override
  public Seq<Row> run(SparkSession session) {
    return SparkCompat.seq(StatementCalls.run(session, statement, procedure, target, rows, arguments, schema, merge));
  }

  /** What EXPLAIN shows: the statement, the Doris operation, the table and its model. */
  @Override
  public String simpleString(int maxFields) {
    return StatementCalls.describe(statement, procedure, target, arguments);
  }

  @Override
  public String verboseString(int maxFields) {
    return simpleString(maxFields);
  }

  @Override
  @SuppressWarnings({"rawtypes", "unchecked"})
  public Seq innerChildren() {
    List<QueryPlan<?>> inner = new ArrayList<>();
    if (rows != null) {
      inner.add(rows);
    }
    return SparkCompat.seq(inner);
  }

  // ---- Scala trait plumbing ----

  /** Spark copies plans by reflection on a case class's constructor; this one copies itself. */
  @Override
  public LogicalPlan clone() {
    LogicalPlan copy = new DorisStatement(this);
    if (analyzed()) {
      copy.setAnalyzed();
    }
    return copy;
  }

  @Override
  public Seq<Attribute> output() {
    return output;
  }

  @Override
  public Seq<Enumeration.Value> nodePatterns() {
    return nodePatterns;
  }

  @Override
  public void org$apache$spark$sql$catalyst$plans$logical$Command$_setter_$nodePatterns_$eq(Seq<Enumeration.Value> patterns) {
    this.nodePatterns = patterns;
  }

  @Override
  public Seq<LogicalPlan> children() {
    return SparkCompat.seq(new ArrayList<LogicalPlan>());
  }

  @Override
  public LogicalPlan mapChildren(Function1<LogicalPlan, LogicalPlan> f) {
    return this;
  }

  @Override
  public LogicalPlan withNewChildrenInternal(IndexedSeq<LogicalPlan> newChildren) {
    return this;
  }

  @Override
  public AttributeSet producedAttributes() {
    return LeafRunnableCommand.super.producedAttributes();
  }

  @Override
  public Statistics stats() {
    return LeafRunnableCommand.super.stats();
  }

  @Override
  public Map<String, SQLMetric> metrics() {
    return LeafRunnableCommand.super.metrics();
  }

  @Override
  public int productArity() {
    return 3;
  }

  @Override
  public Object productElement(int n) {
    switch (n) {
      case 0:
        return statement;
      case 1:
        return procedure;
      case 2:
        return target.name();
      default:
        throw new IndexOutOfBoundsException(String.valueOf(n));
    }
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof DorisStatement;
  }
}
