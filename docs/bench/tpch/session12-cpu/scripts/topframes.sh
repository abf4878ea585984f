#!/bin/bash
# usage: topframes.sh FILE.jfr [N]: top N leaf frames and top N frames anywhere in the stack (inclusive) of the CPU samples
f=$1; n=${2:-25}
jfr print --events jdk.ExecutionSample --stack-depth 64 $f > /tmp/cpureg/samples.txt
python3 - "$n" <<'PY'
import re, sys, collections
n = int(sys.argv[1])
text = open('/tmp/cpureg/samples.txt').read()
events = text.split('jdk.ExecutionSample')
leaf = collections.Counter(); incl = collections.Counter(); total = 0
for e in events:
    frames = re.findall(r'^\s+([\w$.<>]+)\(', e, re.M)
    frames = [f for f in frames if f not in ('stackTrace',)]
    if not frames: continue
    total += 1
    leaf[frames[0]] += 1
    for f in set(frames): incl[f] += 1
print('samples', total)
print('-- leaf'); [print(f'{c*100/total:5.1f}% {f}') for f, c in leaf.most_common(n)]
print('-- inclusive'); [print(f'{c*100/total:5.1f}% {f}') for f, c in incl.most_common(n)]
PY
