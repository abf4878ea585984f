/**
 * Indexes over a column in CPU or GPU memory, for the windowed index nested-loop join (its own issue): binary
 * search, the B+-tree, Harmonia and RadixSpline, each named after its paper, each with its kernels under
 * {@code src/main/cuda/index/}. Empty until that join lands. An index may use the device, transfer and vector
 * layers; the join that probes it ({@code join.inlj}) and the plan use the index, never the other way round.
 */
package org.spillway.gpu.index;
