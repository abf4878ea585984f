package org.spillway.gpu.pipeline.sort;

/**
 * The top-N of a range of rows: a max-heap of the best {@code limit} rows seen so far, whose root is the worst of
 * them, so that a row that does not beat the root costs one comparison.
 */
final class BoundedHeap {
  private BoundedHeap() {}

  /** The best {@code limit} of rows {@code from .. to - 1}, sorted. */
  static int[] best(RowComparator comparator, int from, int to, int limit) {
    int[] heap = new int[Math.min(limit, to - from)];
    int size = 0;
    for (int row = from; row < to; row++) {
      if (size < heap.length) {
        heap[size] = row;
        siftUp(comparator, heap, size++);
      } else if (size > 0 && comparator.compare(row, heap[0]) < 0) {
        heap[0] = row;
        siftDown(comparator, heap, size);
      }
    }
    ColumnSort.mergeSort(comparator, heap, new int[size], 0, size);
    return heap;
  }

  private static void siftUp(RowComparator comparator, int[] heap, int i) {
    int id = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (comparator.compare(heap[parent], id) >= 0) {
        break;
      }
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = id;
  }

  private static void siftDown(RowComparator comparator, int[] heap, int size) {
    int id = heap[0];
    int i = 0;
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && comparator.compare(heap[child + 1], heap[child]) > 0) {
        child++;
      }
      if (comparator.compare(heap[child], id) <= 0) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = id;
  }
}
