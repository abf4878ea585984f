package org.spillway.adapter;

import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.jdbc.CalcitePrepare.CalciteSignature;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.linq4j.QueryProvider;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.runtime.Bindable;
import org.apache.calcite.runtime.Hook;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.sql.SqlExplainFormat;
import org.apache.calcite.sql.SqlExplainLevel;
import org.spillway.gpu.plan.OperatorReport;
import org.spillway.gpu.plan.OperatorReports;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code EXPLAIN ANALYZE <query>}: runs the query once, counting and discarding its rows, and returns the physical
 * plan (EXPLAIN PLAN's text) followed by the run's time, the time preparing the query took, and what each runtime
 * node reported (device, rows, time, predicted time, bytes over the link; {@link SpillwayOperatorTable}), one line per
 * row of a single column, as EXPLAIN's. Calcite's
 * parser knows no EXPLAIN ANALYZE, so {@link SpillwayPrepare} recognizes the statement by its text before anything
 * parses it, and prepares the query itself, uncached, to keep the plan it runs.
 */
public final class SpillwayExplainAnalyze {
  /** The name under which the query's data context hands the plans the collector of their nodes' reports. */
  static final String REPORTS = "spillwayOperatorReports";

  private static final Pattern STATEMENT = Pattern.compile("\\s*explain\\s+analy[sz]e\\s+(.*?)\\s*",
      Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

  private SpillwayExplainAnalyze() {}

  /** The query of an {@code EXPLAIN ANALYZE} statement, or empty for any other statement. */
  public static Optional<String> query(String sql) {
    Matcher m = STATEMENT.matcher(sql);
    return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
  }

  /**
   * The signature of {@code sql}, an EXPLAIN ANALYZE of {@code query}; {@code prepare} prepares a statement's text
   * (Calcite's own preparation, without the plan cache).
   */
  static <T> CalciteSignature<T> prepare(String sql, String query, Function<String, CalciteSignature<T>> prepare) {
    if (!SpillwayPrepare.isQuery(query)) {
      throw new UnsupportedOperationException("EXPLAIN ANALYZE runs a query (SELECT, WITH or VALUES), not: "
          + (query.length() > 80 ? query.substring(0, 77) + "..." : query));
    }
    // EXPLAIN's signature gives the result's one text column, as a client of EXPLAIN knows it
    CalciteSignature<T> explain = prepare.apply("EXPLAIN PLAN FOR " + query);
    AtomicReference<RelNode> plan = new AtomicReference<>();
    CalciteSignature<T> run;
    long prepareStart = System.nanoTime();
    try (Hook.Closeable capture = Hook.PLAN_BEFORE_IMPLEMENTATION.addThread((RelRoot root) -> plan.set(root.rel))) {
      run = prepare.apply(query);
    }
    long prepareNanos = System.nanoTime() - prepareStart;
    RelNode root = plan.get();
    if (root == null) {
      throw new IllegalStateException("Calcite implemented the query of EXPLAIN ANALYZE without a plan: " + query);
    }
    String text = RelOptUtil.dumpPlan("", root, SqlExplainFormat.TEXT, SqlExplainLevel.EXPPLAN_ATTRIBUTES);
    Map<Integer, Integer> order = planOrder(root);
    boolean arrays = explain.cursorFactory.style == Meta.Style.ARRAY;
    Bindable<T> bindable = dataContext -> new AbstractEnumerable<>() {
      @Override public Enumerator<T> enumerator() {
        List<Object> rows = new ArrayList<>();
        for (String line : analyze(run, dataContext, text, order, prepareNanos)) {
          rows.add(arrays ? new Object[] {line} : line);
        }
        @SuppressWarnings("unchecked")
        Enumerator<T> lines = (Enumerator<T>) Linq4j.enumerator(rows);
        return lines;
      }
    };
    // the query's internal parameters: its generated code reads the plans it stashed there
    return new CalciteSignature<>(sql, run.parameters, run.internalParameters, explain.rowType, explain.columns,
        explain.cursorFactory, explain.rootSchema, List.of(), -1, bindable, explain.statementType);
  }

  /**
   * Runs the query, and returns the plan's lines and then the table of its nodes' reports in plan order; {@code
   * prepareNanos} is what preparing the query took (parsing, planning, code generation), which a run does not show.
   */
  private static <T> List<String> analyze(CalciteSignature<T> run, DataContext context, String plan,
      Map<Integer, Integer> order, long prepareNanos) {
    OperatorReports reports = new OperatorReports();
    long start = System.nanoTime();
    long rows = 0;
    try (Enumerator<T> e = run.enumerable(withReports(context, reports)).enumerator()) {
      while (e.moveNext()) {
        rows++;
      }
    }
    long nanos = System.nanoTime() - start;
    List<OperatorReport> sorted = new ArrayList<>(reports.list());
    // stable: the reports of one node (a subtree reused) stay in the order they came
    sorted.sort(Comparator.comparingInt(r -> order.getOrDefault(r.planned().planId(), Integer.MAX_VALUE)));
    List<String> lines = new ArrayList<>(plan.lines().toList());
    lines.addAll(SpillwayOperatorTable.lines(sorted, rows, nanos, prepareNanos));
    return lines;
  }

  /** The position of each node of the plan in EXPLAIN's text (top down, inputs in order), by the node's id. */
  private static Map<Integer, Integer> planOrder(RelNode root) {
    Map<Integer, Integer> order = new HashMap<>();
    number(root, order);
    return order;
  }

  private static void number(RelNode rel, Map<Integer, Integer> order) {
    order.putIfAbsent(rel.getId(), order.size());
    for (RelNode input : rel.getInputs()) {
      number(input, order);
    }
  }

  /** {@code context}, also handing out {@code reports} under {@link #REPORTS}. */
  private static DataContext withReports(DataContext context, OperatorReports reports) {
    return new DataContext() {
      @Override public SchemaPlus getRootSchema() {
        return context.getRootSchema();
      }

      @Override public JavaTypeFactory getTypeFactory() {
        return context.getTypeFactory();
      }

      @Override public QueryProvider getQueryProvider() {
        return context.getQueryProvider();
      }

      @Override public Object get(String name) {
        return REPORTS.equals(name) ? reports : context.get(name);
      }
    };
  }
}
