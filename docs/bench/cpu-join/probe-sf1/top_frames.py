"""Top frames of a JFR recording's execution samples.

Usage: jfr print --stack-depth 64 --events jdk.ExecutionSample rec.jfr > rec.txt; python3 top_frames.py rec.txt [N]
Prints the N methods most often on top of a sampled stack (self), the share of samples whose top frame is in
org.spillway.gpu.join.hash (the pipelined hash join), and the N org.spillway methods most often on a stack at all
(inclusive). Shares are of all samples of the process (planning and class loading included).
"""
import sys, re, collections
def stacks(path):
    cur = None
    for line in open(path):
        s = line.strip()
        if s.startswith('jdk.ExecutionSample'):
            cur = []
        elif s.startswith('stackTrace = ['):
            pass
        elif cur is not None and re.match(r'^[\w$.<>/]+\(.*\)\s+line:', s):
            cur.append(re.sub(r'\(.*', '', s))
        elif cur is not None and s == ']':
            yield cur
            cur = None
        elif cur is not None and s == '...':
            pass
selfc = collections.Counter(); incl = collections.Counter(); n = 0
for st in stacks(sys.argv[1]):
    if not st: continue
    n += 1
    selfc[st[0]] += 1
    for m in set(st): incl[m] += 1
k = int(sys.argv[2]) if len(sys.argv) > 2 else 15
print(f"samples: {n}")
print("top frames (self):")
for m, c in selfc.most_common(k): print(f"  {100*c/n:5.1f}%  {m}")
joinhash = sum(c for m, c in selfc.items() if m.startswith('org.spillway.gpu.join.hash.'))
print(f"self in org.spillway.gpu.join.hash: {100*joinhash/n:5.1f}%")
print("inclusive (org.spillway):")
for m, c in [x for x in incl.most_common(200) if x[0].startswith('org.spillway')][:k]: print(f"  {100*c/n:5.1f}%  {m}")
