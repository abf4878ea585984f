/**
 * Indexes over a sorted, unique key column in CPU memory, for the windowed index nested-loop join of Schmeißer,
 * Lutz and Markl (EDBT 2025): binary search over the column, the B+-tree with 4 KiB nodes, Harmonia and
 * RadixSpline, each named after its paper, behind {@link org.spillway.gpu.index.SortedKeyIndex}. Each is clustered
 * (the column is its leaf level) and keeps its structure in one flat off-heap buffer, so the CPU lookups and the
 * GPU lookups ({@link org.spillway.gpu.index.GpuIndexLookup}, kernels under {@code src/main/cuda/index/}, reading
 * pinned memory over the link) share it. An index may use the device layer and the scheduler; the join that
 * probes it ({@code join.inlj}) and the plan use the index, never the other way round.
 */
package org.spillway.gpu.index;
