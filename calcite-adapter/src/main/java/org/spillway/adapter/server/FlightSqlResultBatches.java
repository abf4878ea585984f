package org.spillway.adapter.server;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.sql.Date;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Time;
import java.sql.Timestamp;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeStampMilliVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Fills Arrow record batches from a JDBC result set, a batch of rows at a time: one typed copier per column,
 * chosen once from the vector {@link FlightSqlTypes} made for it, reads each value with the getter of its type.
 *
 * <p>The path of a plan with a Calcite operator on top: the embedded driver hands its rows to JDBC one at a
 * time, so this is where they become columnar again. A plan with a Spillway node on top skips the rows
 * ({@link FlightSqlColumnarBatches}).
 */
final class FlightSqlResultBatches implements FlightSqlBatches {
  private final ResultSet resultSet;
  private final VectorSchemaRoot root;
  private final ColumnCopier[] copiers;
  private boolean exhausted;

  /** Copies {@code resultSet} into {@code root}, whose schema is {@link FlightSqlTypes#schema} of it. */
  FlightSqlResultBatches(ResultSet resultSet, VectorSchemaRoot root) {
    this.resultSet = resultSet;
    this.root = root;
    final List<FieldVector> vectors = root.getFieldVectors();
    this.copiers = new ColumnCopier[vectors.size()];
    for (int c = 0; c < copiers.length; c++) {
      copiers[c] = copier(vectors.get(c), c + 1);
    }
  }

  @Override
  public int next(int maxRows) throws SQLException {
    root.allocateNew();
    int rows = 0;
    while (rows < maxRows && !exhausted) {
      if (!resultSet.next()) {
        exhausted = true;
        break;
      }
      for (ColumnCopier copier : copiers) {
        copier.copy(resultSet, rows);
      }
      rows++;
    }
    root.setRowCount(rows);
    return rows;
  }

  @Override
  public String path() {
    return "rows";
  }

  /** Copies the current row's value of one column into row {@code row} of its vector. */
  @FunctionalInterface
  private interface ColumnCopier {
    void copy(ResultSet rs, int row) throws SQLException;
  }

  private static ColumnCopier copier(FieldVector vector, int column) {
    if (vector instanceof IntVector v) {
      return (rs, row) -> {
        final int value = rs.getInt(column);
        if (rs.wasNull()) {
          v.setNull(row);
        } else {
          v.setSafe(row, value);
        }
      };
    }
    if (vector instanceof BigIntVector v) {
      return (rs, row) -> {
        final long value = rs.getLong(column);
        if (rs.wasNull()) {
          v.setNull(row);
        } else {
          v.setSafe(row, value);
        }
      };
    }
    if (vector instanceof SmallIntVector v) {
      return (rs, row) -> {
        final short value = rs.getShort(column);
        if (rs.wasNull()) {
          v.setNull(row);
        } else {
          v.setSafe(row, value);
        }
      };
    }
    if (vector instanceof TinyIntVector v) {
      return (rs, row) -> {
        final byte value = rs.getByte(column);
        if (rs.wasNull()) {
          v.setNull(row);
        } else {
          v.setSafe(row, value);
        }
      };
    }
    if (vector instanceof Float8Vector v) {
      return (rs, row) -> {
        final double value = rs.getDouble(column);
        if (rs.wasNull()) {
          v.setNull(row);
        } else {
          v.setSafe(row, value);
        }
      };
    }
    if (vector instanceof Float4Vector v) {
      return (rs, row) -> {
        final float value = rs.getFloat(column);
        if (rs.wasNull()) {
          v.setNull(row);
        } else {
          v.setSafe(row, value);
        }
      };
    }
    if (vector instanceof BitVector v) {
      return (rs, row) -> {
        final boolean value = rs.getBoolean(column);
        if (rs.wasNull()) {
          v.setNull(row);
        } else {
          v.setSafe(row, value ? 1 : 0);
        }
      };
    }
    if (vector instanceof DecimalVector v) {
      final int scale = v.getScale();
      return (rs, row) -> {
        final BigDecimal value = rs.getBigDecimal(column);
        if (value == null) {
          v.setNull(row);
        } else {
          // An Arrow decimal column has one scale, the declared one; the embedded driver may return a quotient
          // with more digits than its type declares, which a typed protocol can only round.
          v.setSafe(row, value.setScale(scale, RoundingMode.HALF_UP));
        }
      };
    }
    if (vector instanceof DateDayVector v) {
      return (rs, row) -> {
        final Date value = rs.getDate(column);
        if (value == null) {
          v.setNull(row);
        } else {
          v.setSafe(row, Math.toIntExact(value.toLocalDate().toEpochDay()));
        }
      };
    }
    if (vector instanceof TimeMilliVector v) {
      return (rs, row) -> {
        final Time value = rs.getTime(column);
        if (value == null) {
          v.setNull(row);
        } else {
          v.setSafe(row, (int) (value.toLocalTime().toNanoOfDay() / 1_000_000));
        }
      };
    }
    if (vector instanceof TimeStampMilliVector v) {
      return (rs, row) -> {
        final Timestamp value = rs.getTimestamp(column);
        if (value == null) {
          v.setNull(row);
        } else {
          v.setSafe(row, value.toLocalDateTime().toInstant(ZoneOffset.UTC).toEpochMilli());
        }
      };
    }
    if (vector instanceof VarBinaryVector v) {
      return (rs, row) -> {
        final byte[] value = rs.getBytes(column);
        if (value == null) {
          v.setNull(row);
        } else {
          v.setSafe(row, value);
        }
      };
    }
    if (vector instanceof VarCharVector v) {
      return (rs, row) -> {
        final String value = rs.getString(column);
        if (value == null) {
          v.setNull(row);
        } else {
          v.setSafe(row, value.getBytes(StandardCharsets.UTF_8));
        }
      };
    }
    throw new IllegalArgumentException("no JDBC copier for Arrow vector " + vector.getClass().getSimpleName()
        + " of column " + vector.getName());
  }
}
