package org.spillway.storage;

/**
 * Statistics of one column: min and max as Java values (the types {@link ColumnReader#get} returns, null
 * when the column holds no non-null value), the null count, an estimate of distinct non-null values, and whether
 * the non-null values are known to be non-decreasing in the table's order ({@code sorted}: a table written in key
 * order, as TPC-H's lineitem and orders are; false when not known, for text columns and for tables written before
 * the flag existed).
 */
public record ColumnStatistics(String column, Object min, Object max, long nullCount, long distinctCount,
    boolean sorted) {
}
