package org.spillway.adapter;

import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.tree.Types;

import java.lang.reflect.Method;

/** Methods that the code generated for a Spillway plan calls at run time. */
public enum SpillwayMethod {
  QUERY(SpillwayTable.class, "query", DataContext.class, int[].class, boolean.class),
  EXECUTE(SpillwayQueryPlan.class, "execute", DataContext.class, boolean.class);

  public final Method method;

  SpillwayMethod(Class<?> clazz, String methodName, Class<?>... argumentTypes) {
    this.method = Types.lookupMethod(clazz, methodName, argumentTypes);
  }
}
