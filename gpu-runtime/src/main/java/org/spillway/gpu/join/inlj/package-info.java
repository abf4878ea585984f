/**
 * The windowed index nested-loop join of Schmeißer, Lutz and Markl (EDBT 2025): the probe stream is cut into
 * tumbling windows, each window radix-partitioned on the high bits of its keys so that neighbouring lookups walk
 * neighbouring parts of the index, looked up through a {@link org.spillway.gpu.index.SortedKeyIndex}, and emitted as
 * a join index in the window's original probe order so a pipeline continues in probe order. {@link
 * org.spillway.gpu.join.inlj.WindowedIndexJoin} is the CPU implementation, the fallback and the reference of the GPU
 * one, {@link org.spillway.gpu.join.inlj.GpuWindowedIndexJoin}; {@code WindowedIndexJoin.run} runs either. Sits
 * above {@code index} and {@code join} in the layers.
 */
package org.spillway.gpu.join.inlj;
