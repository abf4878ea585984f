package org.spillway.adapter;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.interpreter.BindableConvention;
import org.apache.calcite.jdbc.CalcitePrepare;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.plan.Contexts;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCostFactory;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.prepare.CalcitePrepareImpl;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql2rel.RelFieldTrimmer;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;
import org.apache.calcite.sql2rel.SqlToRelConverter;
import org.spillway.storage.Catalog;

/**
 * Calcite's statement preparation with a bounded plan cache per connection: a query whose SQL text, default
 * schema, result shape and tables are those of an earlier one reuses its prepared signature (plan and compiled
 * code), so that repeated statements skip parsing, planning and code generation. Only queries are cached, not
 * EXPLAIN (whose text shows the current choices) nor DDL, nor a query that reads a file
 * ({@link SpillwayFileTables}: the file may change); EXPLAIN ANALYZE plans and runs its query afresh
 * ({@link SpillwayExplainAnalyze}). CREATE INDEX and DROP INDEX, which Calcite's parser does not know, run here
 * ({@link SpillwayIndexStatements}), and so do CREATE TABLE AS and DROP TABLE ({@link SpillwayTableStatements});
 * each statement first lets the connection's catalogs find tables other processes created or dropped
 * ({@link Catalog#refresh}). The key holds the catalog's table objects, so a table
 * dropped or created again invalidates the plans over the old one; a connection's settings cannot change, and
 * the cache dies with its connection (keyed weakly by the connection's root schema).
 *
 * <p>A query's signature offers the columns of a Spillway node on top of its plan to a
 * {@link SpillwayColumnarCapture}. Statements trim unused fields with {@link SpillwayFieldTrimmer}, which keeps correlated sub-queries right
 * over a join side of which nothing is used.
 */
public final class SpillwayPrepare extends CalcitePrepareImpl {
  /** Plans kept per connection; the least recently used goes first. */
  static final int PLANS_PER_CONNECTION = 128;

  private static final Map<CalciteSchema, Map<Key, CalciteSignature<?>>> CACHES = new WeakHashMap<>();

  /** What makes a prepared signature reusable. */
  private record Key(String sql, List<String> schemaPath, Type elementType, long maxRowCount, List<Object> tables,
      String transferProperty) {}

  @Override public <T> CalciteSignature<T> prepareSql(Context context, Query<T> query, Type elementType,
      long maxRowCount) {
    refreshCatalogs(context.getMutableRootSchema());
    if (query.sql != null && SpillwayIndexStatements.matches(query.sql)) {
      return SpillwayIndexStatements.execute(query.sql, context);
    }
    if (query.sql != null && SpillwayTableStatements.matches(query.sql)) {
      return SpillwayTableStatements.execute(query.sql, context,
          sql -> prepareSql(context, CalcitePrepare.Query.of(sql), Object[].class, -1));
    }
    Optional<String> analyzed = query.sql == null ? Optional.empty() : SpillwayExplainAnalyze.query(query.sql);
    if (analyzed.isPresent()) {
      return SpillwayExplainAnalyze.prepare(query.sql, analyzed.get(),
          sql -> super.prepareSql(context, CalcitePrepare.Query.of(sql), elementType, -1));
    }
    if (query.sql == null || !isQuery(query.sql)) {
      return super.prepareSql(context, query, elementType, maxRowCount);
    }
    if (SpillwayFileTables.mayRead(query.sql)) {
      return SpillwayColumnarCapture.offering(super.prepareSql(context, query, elementType, maxRowCount));
    }
    CalciteSchema root = context.getMutableRootSchema();  // getRootSchema() is a new snapshot per statement
    Key key = new Key(query.sql, List.copyOf(context.getDefaultSchemaPath()), elementType, maxRowCount,
        tables(root), System.getProperty(SpillwayBackend.TRANSFER_PROPERTY));
    Map<Key, CalciteSignature<?>> cache;
    synchronized (CACHES) {
      cache = CACHES.computeIfAbsent(root, r -> new LinkedHashMap<>(16, 0.75f, true) {
        @Override protected boolean removeEldestEntry(Map.Entry<Key, CalciteSignature<?>> eldest) {
          return size() > PLANS_PER_CONNECTION;
        }
      });
    }
    synchronized (cache) {
      @SuppressWarnings("unchecked")
      CalciteSignature<T> hit = (CalciteSignature<T>) cache.get(key);
      if (hit != null) {
        return hit;
      }
    }
    CalciteSignature<T> prepared = super.prepareSql(context, query, elementType, maxRowCount);
    if (prepared.statementType != Meta.StatementType.SELECT) {
      return prepared;
    }
    Map<Key, CalciteSignature<?>> owner = cache;
    CalciteSignature<T> signature = SpillwayEvictingSignature.of(SpillwayColumnarCapture.offering(prepared), () -> {
      synchronized (owner) {
        owner.remove(key);
      }
    });
    synchronized (cache) {
      cache.put(key, signature);
    }
    return signature;
  }

  /** A planner whose context holds this statement's {@link SpillwayFallbacks}, so EXPLAIN can say what fell back. */
  @Override protected RelOptPlanner createPlanner(CalcitePrepare.Context prepareContext,
      org.apache.calcite.plan.Context externalContext, RelOptCostFactory costFactory) {
    org.apache.calcite.plan.Context outer = externalContext != null ? externalContext
        : Contexts.of(prepareContext.config());
    return super.createPlanner(prepareContext, Contexts.chain(Contexts.of(new SpillwayFallbacks()), outer),
        costFactory);
  }

  /** Calcite's preparing statement, with {@link SpillwayFieldTrimmer} as the trimmer of its converter. */
  @Override protected CalcitePreparingStmt getPreparingStmt(Context context, Type elementType,
      CalciteCatalogReader catalogReader, RelOptPlanner planner) {
    RelDataTypeFactory typeFactory = context.getTypeFactory();
    EnumerableRel.Prefer prefer = elementType == Object[].class ? EnumerableRel.Prefer.ARRAY
        : EnumerableRel.Prefer.CUSTOM;
    return new TrimmingStmt(this, context, catalogReader, typeFactory, context.getRootSchema(), prefer,
        createCluster(planner, new RexBuilder(typeFactory)),
        enableBindable ? BindableConvention.INSTANCE : EnumerableConvention.INSTANCE, createConvertletTable());
  }

  /** A preparing statement whose converters trim with {@link SpillwayFieldTrimmer}. */
  private static final class TrimmingStmt extends CalcitePreparingStmt {
    private final RelOptCluster cluster;

    TrimmingStmt(CalcitePrepareImpl prepare, Context context, Prepare.CatalogReader catalogReader,
        RelDataTypeFactory typeFactory, CalciteSchema schema, EnumerableRel.Prefer prefer, RelOptCluster cluster,
        org.apache.calcite.plan.Convention resultConvention, SqlRexConvertletTable convertletTable) {
      super(prepare, context, catalogReader, typeFactory, schema, prefer, cluster, resultConvention, convertletTable);
      this.cluster = cluster;
    }

    @Override protected SqlToRelConverter getSqlToRelConverter(SqlValidator validator,
        Prepare.CatalogReader catalogReader, SqlToRelConverter.Config config) {
      return new SqlToRelConverter(this, validator, catalogReader, cluster, convertletTable, config) {
        @Override protected RelFieldTrimmer newFieldTrimmer() {
          return new SpillwayFieldTrimmer(validator, config.getRelBuilderFactory().create(cluster, null)
              .transform(config.getRelBuilderConfigTransform()));
        }
      };
    }
  }

  /** Whether the statement is a query (SELECT, WITH, VALUES, or one in parentheses), not EXPLAIN or DDL. */
  static boolean isQuery(String sql) {
    String s = sql.stripLeading();
    while (s.startsWith("(")) {
      s = s.substring(1).stripLeading();
    }
    String word = s.length() < 6 ? s : s.substring(0, 6);
    word = word.toLowerCase(Locale.ROOT);
    return word.startsWith("select") || word.startsWith("with") || word.startsWith("values");
  }

  /**
   * Lets every Spillway catalog of the connection find the tables other processes created or dropped since its
   * last statement (one directory listing each), so that a statement sees them without a restart.
   */
  private static void refreshCatalogs(CalciteSchema root) {
    for (CalciteSchema schema : root.getSubSchemaMap().values()) {
      if (schema.schema instanceof SpillwaySchema spillway) {
        spillway.catalog().refresh();
      }
    }
  }

  /** The table objects of every Spillway catalog the connection sees, compared by identity. */
  private static List<Object> tables(CalciteSchema root) {
    List<Object> tables = new ArrayList<>();
    for (CalciteSchema schema : root.getSubSchemaMap().values()) {
      if (schema.schema instanceof SpillwaySchema spillway) {
        Catalog catalog = spillway.catalog();
        Map<String, String> broken = catalog.brokenTables();
        for (String name : catalog.tableNames()) {
          // a broken table fails only the queries that use it; here its reason stands for it
          tables.add(broken.containsKey(name) ? broken.get(name) : catalog.table(name).orElse(null));
        }
      }
    }
    return tables;
  }
}
