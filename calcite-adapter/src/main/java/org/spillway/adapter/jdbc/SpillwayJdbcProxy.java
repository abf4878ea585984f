package org.spillway.adapter.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Wraps the JDBC objects of Calcite's driver (connection, statements, result sets, metadata) so that every
 * failure leaves them as an {@link SQLException} classified by {@link SpillwaySqlErrors}: Avatica lets
 * RuntimeExceptions and Errors of row fetching escape {@code ResultSet.next()} raw, and gives those of
 * {@code execute} no SQLSTATE. Statements additionally get cancel, timeout and size limits from
 * {@link SpillwayStatementGuard}; metadata lists the catalog's indexes ({@link SpillwayIndexInfo}), which Calcite's
 * driver does not know. {@code unwrap} still reaches Calcite's own objects.
 */
final class SpillwayJdbcProxy implements InvocationHandler {
  /** What {@link #direct} returns for a method it does not call. */
  private static final Object NOT_DIRECT = new Object();

  private final Object target;
  /** The target where it is a result set (its value getters are called directly), else null. */
  private final ResultSet results;
  private final SpillwayStatementGuard guard;
  /** The connection proxy that {@code getConnection()} returns; set once that proxy exists. */
  private Connection connection;

  private SpillwayJdbcProxy(Object target, Connection connection, SpillwayStatementGuard guard) {
    this.target = target;
    this.results = target instanceof ResultSet rs ? rs : null;
    this.connection = connection;
    this.guard = guard;
  }

  /** The connection as Spillway's clients see it. */
  static Connection wrap(Connection connection) {
    SpillwayJdbcProxy handler = new SpillwayJdbcProxy(connection, null, null);
    handler.connection = (Connection) Proxy.newProxyInstance(SpillwayJdbcProxy.class.getClassLoader(),
        interfaces(connection), handler);
    return handler.connection;
  }

  @Override public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    if (method.getDeclaringClass() == Object.class) {
      return objectMethod(proxy, method, args);
    }
    if (results != null) {  // a value getter neither starts nor ends a statement's run: the guard has no part in it
      Object value;
      try {
        value = direct(results, method, args);
      } catch (SQLException | RuntimeException | Error e) {
        throw failure(method, e);
      }
      if (value != NOT_DIRECT) {
        if (guard != null) {
          guard.after(method, value);  // the last next() ends the run
        }
        return value;
      }
    }
    if (guard != null) {
      guard.before(method, args);
    } else if (target instanceof Connection && args != null && args.length > 0 && args[0] instanceof String sql
        && (method.getName().startsWith("prepare") || method.getName().equals("nativeSQL"))) {
      SpillwayStatementGuard.checkLength(sql);
    }
    Object result;
    try {
      result = target instanceof DatabaseMetaData && method.getName().equals("getIndexInfo")
          ? SpillwayIndexInfo.of(connection, (String) args[1], (String) args[2]) : method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw failure(method, e.getCause());
    }
    if (guard != null) {
      guard.after(method, result);
    }
    return wrapResult(proxy, method, result);
  }

  /** What a call of {@code method} that failed with {@code cause} throws (its SQLException, where it declares one). */
  private Throwable failure(Method method, Throwable cause) {
    Throwable failure = guard != null ? guard.failed(cause) : cause;
    if (failure instanceof VirtualMachineError && !(failure instanceof StackOverflowError)
        && !(failure instanceof OutOfMemoryError) || !declaresSqlException(method)) {
      // An InternalError (the JVM itself is broken), or a method that cannot throw an SQLException.
      return failure;
    }
    return SpillwaySqlErrors.toSqlException(failure);
  }

  /**
   * {@code next}, {@code wasNull} or a value getter by column number of a result set, called directly
   * ({@link #NOT_DIRECT} for any other method): a client reads a large result one value at a time, and a reflective
   * call (access and receiver checks against the many interfaces of Calcite's result set) costs several times the
   * getter.
   */
  private static Object direct(ResultSet rs, Method method, Object[] args) throws SQLException {
    if (args == null) {
      return switch (method.getName()) {
        case "next" -> rs.next();
        case "wasNull" -> rs.wasNull();
        default -> NOT_DIRECT;
      };
    }
    if (args.length != 1 || !(args[0] instanceof Integer column)) {
      return NOT_DIRECT;
    }
    return switch (method.getName()) {
      case "getString" -> rs.getString(column);
      case "getLong" -> rs.getLong(column);
      case "getInt" -> rs.getInt(column);
      case "getDouble" -> rs.getDouble(column);
      case "getBigDecimal" -> rs.getBigDecimal(column);
      case "getBoolean" -> rs.getBoolean(column);
      case "getDate" -> rs.getDate(column);
      case "getTimestamp" -> rs.getTimestamp(column);
      case "getObject" -> rs.getObject(column);
      default -> NOT_DIRECT;
    };
  }

  private Object wrapResult(Object proxy, Method method, Object result) {
    if (result == null || !returnsJdbcObject(method) || method.getName().equals("unwrap")) {
      return result;  // a value; unwrap reaches Calcite's own object (Avatica's server code casts it)
    }
    if (result == target) {
      return proxy;
    }
    if (result instanceof Connection) {
      return connection;
    }
    if (result instanceof Statement statement) {
      if (guard != null && guard.statement() == statement) {
        return guard.statementProxy();  // ResultSet.getStatement(): the statement the client holds
      }
      SpillwayStatementGuard statementGuard = new SpillwayStatementGuard(statement);
      Statement statementProxy = (Statement) proxy(statement, statementGuard);
      statementGuard.setStatementProxy(statementProxy);
      return statementProxy;
    }
    if (result instanceof ResultSet resultSet) {
      // A result set of a statement shares its guard: fetching is part of the statement's run.
      return proxy(resultSet, guard);
    }
    if (result instanceof DatabaseMetaData) {
      return proxy(result, null);
    }
    return result;
  }

  /**
   * Whether the method may return a connection, statement, result set or metadata, which are wrapped: only methods
   * declared to return an interface can. Asked first, so that a getter's value skips the four interface checks, which
   * cost more than the getter itself (an object's class checked against several interfaces in turn misses the JVM's
   * one-entry cache of its last match every time).
   */
  private static boolean returnsJdbcObject(Method method) {
    Class<?> type = method.getReturnType();
    return type.isInterface() && (Connection.class.isAssignableFrom(type) || Statement.class.isAssignableFrom(type)
        || ResultSet.class.isAssignableFrom(type) || DatabaseMetaData.class.isAssignableFrom(type));
  }

  private Object proxy(Object object, SpillwayStatementGuard objectGuard) {
    return Proxy.newProxyInstance(SpillwayJdbcProxy.class.getClassLoader(), interfaces(object),
        new SpillwayJdbcProxy(object, connection, objectGuard));
  }

  private Object objectMethod(Object proxy, Method method, Object[] args) throws Throwable {
    return switch (method.getName()) {
      case "equals" -> proxy == args[0];
      case "hashCode" -> System.identityHashCode(proxy);
      case "toString" -> "Spillway " + target;
      default -> method.invoke(target, args);
    };
  }

  private static boolean declaresSqlException(Method method) {
    for (Class<?> type : method.getExceptionTypes()) {
      if (type.isAssignableFrom(SQLException.class)) {
        return true;
      }
    }
    return false;
  }

  /** Every public interface of the object's class, so that casts to Calcite's interfaces still work. */
  private static Class<?>[] interfaces(Object object) {
    Set<Class<?>> all = new LinkedHashSet<>();
    for (Class<?> c = object.getClass(); c != null; c = c.getSuperclass()) {
      collect(c, all);
    }
    return all.toArray(new Class<?>[0]);
  }

  private static void collect(Class<?> type, Set<Class<?>> into) {
    for (Class<?> i : type.getInterfaces()) {
      if (Modifier.isPublic(i.getModifiers()) && into.add(i)) {
        collect(i, into);
      }
    }
  }
}
