package org.spillway.gpu.transfer;

/**
 * One chunk of rows as a consumer kernel sees it: for each streamed column, the device-visible address
 * of the chunk's first row (device memory, managed memory or mapped host memory, by method).
 */
public record DeviceChunk(long index, long firstRow, long rowCount, long[] columnAddresses) {}
