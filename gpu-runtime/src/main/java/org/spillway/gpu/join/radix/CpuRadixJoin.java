package org.spillway.gpu.join.radix;

import org.spillway.gpu.join.EquiJoin;
import org.spillway.gpu.join.JoinInput;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinSink;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.JoinWorkers;
import org.spillway.gpu.join.LinearProbingTable;

/**
 * The radix-partitioned hash join (Barthels et al.'s PRO shape, as Sioulas et al. and Triton build on): both
 * sides are radix-partitioned on hash bits in one or two passes so that each build partition's table fits
 * the L2 cache, then partition pairs are joined independently, multithreaded over partitions.
 */
public final class CpuRadixJoin implements EquiJoin {
  /** Per-core L2 cache the partition tables should fit; 1 MiB on the development machine (AMD EPYC). */
  static final long DEFAULT_L2_BYTES = 1 << 20;
  /** Bytes per build row in a partition's table: a 16-byte entry at 50% load. */
  static final int TABLE_BYTES_PER_ROW = 32;
  /** Above this fanout one pass thrashes the TLB and write buffers, so the bits split over two passes. */
  static final int MAX_SINGLE_PASS_BITS = 10;
  static final int MAX_RADIX_BITS = 20;

  private final JoinWorkers workers;
  private final int forcedRadixBits;

  /** A join that picks its radix bits from the build size. */
  public CpuRadixJoin(int threads) {
    this(threads, -1);
  }

  /** A join with a fixed number of radix bits ({@code -1}: chosen from the build size), e.g. for tests. */
  public CpuRadixJoin(int threads, int radixBits) {
    if (radixBits < -1 || radixBits > MAX_RADIX_BITS) {
      throw new IllegalArgumentException("radix bits must be -1 (automatic) or 0.." + MAX_RADIX_BITS + ", got "
          + radixBits);
    }
    this.workers = new JoinWorkers(threads, "radix-join");
    this.forcedRadixBits = radixBits;
  }

  @Override
  public String name() {
    return "radix";
  }

  /** Radix bits so that a build partition's table fits {@code l2Bytes}: ceil(log2(table bytes / L2)). */
  public static int radixBits(long buildRows, long l2Bytes) {
    long rowsPerPartition = Math.max(1, l2Bytes / TABLE_BYTES_PER_ROW);
    int bits = 0;
    while (bits < MAX_RADIX_BITS && (rowsPerPartition << bits) < buildRows) {
      bits++;
    }
    return bits;
  }

  @Override
  public JoinResult join(JoinInput build, JoinInput probe, JoinType type, JoinOutput output) {
    build.checkUsableFor(output, "build");
    probe.checkUsableFor(output, "probe");
    int bits = forcedRadixBits >= 0 ? forcedRadixBits
        : radixBits(RadixPartitioner.nonNullRows(build), DEFAULT_L2_BYTES);
    int bits1 = bits <= MAX_SINGLE_PASS_BITS ? bits : (bits + 1) / 2;
    int bits2 = bits - bits1;
    RadixPartitioner.Partitioned r = RadixPartitioner.partition(build, output, bits1, bits2, workers);
    RadixPartitioner.Partitioned s = RadixPartitioner.partition(probe, output, bits1, bits2, workers);
    JoinSink[] sinks = JoinSink.create(output, workers.threads());
    LinearProbingTable[] tables = new LinearProbingTable[workers.threads()];
    for (int w = 0; w < tables.length; w++) {
      tables[w] = new LinearProbingTable(bits);
    }
    workers.forEachMorsel(1 << bits, (w, p) -> joinPartition(r, s, p, tables[w], type, sinks[w]));
    if (probe.hasNulls() && (type == JoinType.ANTI || type == JoinType.LEFT_OUTER)) {
      emitNullProbeRows(probe, type, output, sinks);
    }
    return JoinSink.merge(output, sinks, "radix/bits=" + bits1 + "+" + bits2);
  }

  private static void joinPartition(RadixPartitioner.Partitioned r, RadixPartitioner.Partitioned s, int p,
      LinearProbingTable table, JoinType type, JoinSink sink) {
    if (s.size(p) == 0) {
      return;
    }
    table.reset(r.size(p));
    for (int i = r.bounds()[p]; i < r.bounds()[p + 1]; i++) {
      table.insert(r.keys()[i], r.values()[i]);
    }
    long[] keys = s.keys();
    long[] values = s.values();
    boolean existenceOnly = type.existenceOnly();
    for (int i = s.bounds()[p]; i < s.bounds()[p + 1]; i++) {
      int matches = table.probe(keys[i], values[i], sink, existenceOnly);
      type.finishProbeRow(matches, values[i], sink);
    }
  }

  /** Probe rows with a NULL key were left out of the partitions; ANTI and LEFT_OUTER still output them. */
  private void emitNullProbeRows(JoinInput probe, JoinType type, JoinOutput output, JoinSink[] sinks) {
    int morsel = RadixPartitioner.CHUNK_ROWS;
    workers.forEachMorsel(JoinWorkers.morselCount(probe.rows(), morsel), (w, m) -> {
      int end = Math.min(probe.rows(), (m + 1) * morsel);
      for (int i = m * morsel; i < end; i++) {
        if (probe.isNull(i)) {
          type.finishProbeRow(0, probe.value(i, output), sinks[w]);
        }
      }
    });
  }

  @Override
  public void close() {
    workers.close();
  }
}
