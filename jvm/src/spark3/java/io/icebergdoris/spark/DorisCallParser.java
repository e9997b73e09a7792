package io.icebergdoris.spark;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.analysis.UnresolvedFunction;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedArgumentExpression;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.CallArgument;
import org.apache.spark.sql.catalyst.plans.logical.CallStatement;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.PositionalArgument;
import org.apache.spark.sql.execution.command.ExplainCommand;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.collection.JavaConverters;
import scala.collection.Seq;

/**
 * Parser that turns {@code CALL doris.<name>(args)} into Iceberg's {@link CallStatement}, takes
 * Doris's {@code UPDATE ... FROM} ({@link UpdateFromParser}), and hands every other statement to the
 * wrapped parser.
 *
 * <p>The whole argument list becomes one JSON string argument, {@code to_json(named_struct(...))},
 * so Spark still evaluates each argument expression (literals, {@code array(...)}, {@code map(...)},
 * {@code current_date()}, ...) while binding, defaults and type checks happen once, in Python,
 * for both the SQL and the Python entry points. Positional arguments are keyed {@code "#<index>"}.
 */
public final class DorisCallParser implements ParserInterface {

  /** Leading line comments belong to the head, so blanking it keeps line numbers right. */
  private static final Pattern CALL =
      Pattern.compile(
          "^((?:\\s*--[^\\n]*\\n)*\\s*CALL\\s+`?doris`?\\s*\\.\\s*`?([A-Za-z_][A-Za-z0-9_]*)`?\\s*\\()"
              + "(.*)\\)\\s*;?\\s*$",
          Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

  /** Any ordinary function name works; struct( is special in Spark's grammar. */
  private static final String WRAPPER = "args(";

  private final SparkSession session;
  private final ParserInterface delegate;
  private final DorisStatementRule rowLevelStatements;

  public DorisCallParser(SparkSession session, ParserInterface delegate) {
    this.session = session;
    this.delegate = delegate;
    this.rowLevelStatements = new DorisStatementRule(session, true);
  }

  @Override
  public LogicalPlan parsePlan(String sqlText) throws ParseException {
    Matcher call = CALL.matcher(sqlText);
    if (!call.matches()) {
      LogicalPlan updateFrom = UpdateFromParser.parse(session, delegate, sqlText);
      return updateFrom != null ? updateFrom : rowLevelStatement(delegate.parsePlan(sqlText));
    }
    String head = call.group(1);
    String procedure = call.group(2).toLowerCase();
    String argumentText = call.group(3);
    List<Expression> arguments = parseArguments(sqlText, head, argumentText);
    Expression json = toJsonArgument(arguments);
    List<CallArgument> callArgs = Collections.singletonList(new PositionalArgument(json));
    return new CallStatement(seq(List.of(NamedCatalog.CATALOG, procedure)), seq(callArgs));
  }

  /**
   * DELETE, UPDATE or MERGE on a Doris table, as the Doris operation ({@link DorisStatementRule}):
   * Spark 3.5's analyzer rewrites them into row-level plans in the pass that resolves them, and
   * has no earlier batch an extension can join, so they are taken here, as parsed (also under
   * EXPLAIN). Anything else, and these on other tables, go on as parsed.
   */
  private LogicalPlan rowLevelStatement(LogicalPlan parsed) {
    if (parsed instanceof ExplainCommand) {
      ExplainCommand explain = (ExplainCommand) parsed;
      LogicalPlan inner = rowLevelStatements.apply(explain.logicalPlan());
      return inner == explain.logicalPlan() ? parsed : new ExplainCommand(inner, explain.mode());
    }
    return rowLevelStatements.apply(parsed);
  }

  /**
   * Parses the argument list as the arguments of a function call, which gives Spark's own
   * expression grammar and its {@code name => value} named arguments. The head of the statement is
   * blanked (newlines kept) so that parse errors point at the user's line and column.
   */
  private List<Expression> parseArguments(String sqlText, String head, String argumentText)
      throws ParseException {
    if (argumentText.trim().isEmpty()) {
      return Collections.emptyList();
    }
    Expression parsed;
    try {
      parsed = delegate.parseExpression(blankHead(head) + argumentText + ")");
    } catch (ParseException e) {
      // Offsets already match the user's statement; show it instead of the blanked copy.
      throw e.withCommand(sqlText);
    }
    if (!(parsed instanceof UnresolvedFunction)) {
      throw new IllegalStateException("Unexpected argument parse result: " + parsed);
    }
    return new ArrayList<>(JavaConverters.seqAsJavaList(((UnresolvedFunction) parsed).arguments()));
  }

  private static String blankHead(String head) {
    String blank = head.replaceAll("[^\\n]", " ");
    int lastLine = blank.length() - blank.lastIndexOf('\n') - 1;
    int keep = blank.length() - Math.min(lastLine, WRAPPER.length());
    return blank.substring(0, keep) + WRAPPER;
  }

  private static Expression toJsonArgument(List<Expression> arguments) {
    if (arguments.isEmpty()) {
      return Literal.create("{}", DataTypes.StringType);
    }
    List<Expression> structParts = new ArrayList<>();
    int position = 0;
    for (Expression argument : arguments) {
      if (argument instanceof NamedArgumentExpression) {
        NamedArgumentExpression named = (NamedArgumentExpression) argument;
        structParts.add(Literal.create(named.key(), DataTypes.StringType));
        structParts.add(typedNull(named.value()));
      } else {
        structParts.add(Literal.create("#" + position, DataTypes.StringType));
        structParts.add(typedNull(argument));
      }
      position++;
    }
    Expression struct = function("named_struct", structParts);
    Expression options =
        function(
            "map",
            List.of(
                Literal.create("ignoreNullFields", DataTypes.StringType),
                Literal.create("false", DataTypes.StringType)));
    return function("to_json", List.of(struct, options));
  }

  /** A bare NULL has type void, which to_json cannot write; give it a type. */
  private static Expression typedNull(Expression value) {
    if (value instanceof Literal && ((Literal) value).value() == null) {
      return Literal.create(null, DataTypes.StringType);
    }
    return value;
  }

  private static Expression function(String name, List<Expression> args) {
    return new UnresolvedFunction(seq(List.of(name)), seq(args), false, Option.empty(), false);
  }

  private static <T> Seq<T> seq(List<T> items) {
    return JavaConverters.asScalaBuffer(new ArrayList<>(items)).toSeq();
  }

  @Override
  public Expression parseExpression(String sqlText) throws ParseException {
    return delegate.parseExpression(sqlText);
  }

  @Override
  public TableIdentifier parseTableIdentifier(String sqlText) throws ParseException {
    return delegate.parseTableIdentifier(sqlText);
  }

  @Override
  public FunctionIdentifier parseFunctionIdentifier(String sqlText) throws ParseException {
    return delegate.parseFunctionIdentifier(sqlText);
  }

  @Override
  public Seq<String> parseMultipartIdentifier(String sqlText) throws ParseException {
    return delegate.parseMultipartIdentifier(sqlText);
  }

  @Override
  public LogicalPlan parseQuery(String sqlText) throws ParseException {
    return delegate.parseQuery(sqlText);
  }

  @Override
  public StructType parseTableSchema(String sqlText) throws ParseException {
    return delegate.parseTableSchema(sqlText);
  }

  @Override
  public DataType parseDataType(String sqlText) throws ParseException {
    return delegate.parseDataType(sqlText);
  }
}
