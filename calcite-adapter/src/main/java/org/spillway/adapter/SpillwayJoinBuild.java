package org.spillway.adapter;

/**
 * The build side of a pipelined hash join, as the probing pipeline needs it at run time: the node whose output the
 * hash table is built over, the key columns of that output, and a label for traces and errors.
 */
record SpillwayJoinBuild(SpillwayNode node, int[] keys, String label) {
  SpillwayJoinBuild {
    keys = keys.clone();
  }
}
