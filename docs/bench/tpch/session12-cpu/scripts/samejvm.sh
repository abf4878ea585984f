#!/bin/bash
# usage: samejvm.sh OUTFILE ROUNDS QUERIES "jflags": the caller-as-worker scheduler with side-by-side parts (new) against
# the switches that restore the scheduling before (old), in one JVM, the configurations' order swapped every round
out=$1; rounds=$2; q=$3; jf=$4
new="new=device=cpu"
old="old=device=cpu;-Dspillway.scheduler.callerWorks=false;-Dspillway.plan.sideBySide=false"
for i in $(seq 1 $rounds); do
  if [ $((i % 2)) = 1 ]; then c="$new|$old"; else c="$old|$new"; fi
  echo "== round $i java=${JAVA:-java} warm=${WARM:-2} jflags=[$jf] configs=[$c] $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out
  /usr/bin/time -f "cpu user %U sys %S wall %e" /tmp/cpureg/run.sh /work/wt/cpureg $jf -- --sf 1 --data-dir /tmp/tpch-sf1-helper \
    --queries $q --warm ${WARM:-2} --runs 9 --configs "$c" 2>&1 | grep -E "^Q|cpu user|ms |rror|xception|  (new|old) " >> $out
done
