package org.spillway.storage;

/**
 * Statistics of one column: min and max as Java values (the types {@link ColumnReader#get} returns, null
 * when the column holds no non-null value), the null count and an estimate of distinct non-null values.
 */
public record ColumnStatistics(String column, Object min, Object max, long nullCount, long distinctCount) {
}
