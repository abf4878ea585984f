#!/bin/bash
# before (HEAD's SelectionFilter and ArrowColumnLoader first on the class path) against after (the working tree's), JVMs alternating
out=$1; rounds=$2; q=$3
for i in $(seq 1 $rounds); do
  for v in before after; do
    echo "== $v round $i $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out
    if [ $v = before ]; then x=/tmp/before-filter/classes; else x=; fi
    EXTRA_CP=$x /usr/bin/time -f "cpu user %U sys %S wall %e" /tmp/cpureg/run.sh /work/wt/cpureg -XX:+AlwaysPreTouch -- --sf 1 \
      --data-dir /tmp/tpch-sf1-helper --queries $q --warm 3 --runs 15 --configs "cpu=device=cpu" 2>&1 | grep -E "^Q|cpu user|rror|xception" >> $out
  done
done
