#!/bin/bash
# usage: ab2.sh OUTFILE ROUNDS QUERIES WARM RUNS "jflags" TREE_A TREE_B ...: alternates the trees' JVMs round by round;
# the timer's classes (with the cpu ms column) come first on each tree's class path
out=$1; rounds=$2; q=$3; warm=$4; runs=$5; jf=$6; shift 6
for i in $(seq 1 $rounds); do
  for t in "$@"; do
    echo "== $t round $i jflags=[$jf] $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out
    /usr/bin/time -f "cpu user %U sys %S wall %e" /tmp/cpureg/run.sh $t $jf -- --sf 1 --data-dir /tmp/tpch-sf1-helper \
      --queries $q --warm $warm --runs $runs --configs "cpu=device=cpu" 2>&1 | grep -E "^Q|cpu user|ms |rror|xception" >> $out
  done
done
