#!/bin/bash
# usage: run.sh TREE [java flags...] -- [TpchQueryTimer args...]
t=$1; shift
jflags=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do jflags+=("$1"); shift; done
shift
cp=${EXTRA_CP:+$EXTRA_CP:}/tmp/cpureg/timer-classes:$t/arrow-storage/target/classes:$t/gpu-runtime/target/classes:$t/calcite-adapter/target/classes:$t/tpch/target/classes:$(cat $t/calcite-adapter/cp.txt):$(cat $t/tpch/cp.txt)
exec ${JAVA:-java} -Xms6g -Xmx6g -XX:+UseParallelGC --add-opens=java.base/java.nio=ALL-UNNAMED --enable-native-access=ALL-UNNAMED "${jflags[@]}" -cp "$cp" org.spillway.tpch.bench.TpchQueryTimer "$@"
