#!/bin/bash
# usage: modes.sh OUTFILE ROUNDS QUERIES "jflags": one JVM per scheduling mode (new: the caller as worker 0 and parts side
# by side; old: both switched off), JVMs alternating, order swapped every round; $JAVA, $WARM as in samejvm.sh
out=$1; rounds=$2; q=$3; jf=$4
for i in $(seq 1 $rounds); do
  if [ $((i % 2)) = 1 ]; then order="new old"; else order="old new"; fi
  for v in $order; do
    if [ $v = new ]; then c="new=device=cpu"; else c="old=device=cpu;-Dspillway.scheduler.callerWorks=false;-Dspillway.plan.sideBySide=false"; fi
    echo "== round $i $v java=${JAVA:-java} warm=${WARM:-2} jflags=[$jf] $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out
    /usr/bin/time -f "cpu user %U sys %S wall %e" /tmp/cpureg/run.sh /work/wt/cpureg $jf -- --sf 1 --data-dir /tmp/tpch-sf1-helper \
      --queries $q --warm ${WARM:-2} --runs 15 --configs "$c" 2>&1 | grep -E "^Q|cpu user|rror|xception" >> $out
  done
done
