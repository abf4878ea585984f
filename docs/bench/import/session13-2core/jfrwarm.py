# usage: jfrwarm.py F.jfr SKIP_SECONDS [N]: self/inclusive shares and parts of the execution samples after the first SKIP_SECONDS of the recording
import json,subprocess,sys,collections,datetime
f=sys.argv[1]; skip=float(sys.argv[2]); n=int(sys.argv[3]) if len(sys.argv)>3 else 40
out=subprocess.run(['jfr','print','--json','--stack-depth','200','--events','jdk.ExecutionSample',f],capture_output=True,text=True).stdout
ev=json.loads(out)['recording']['events']
def t(e): return datetime.datetime.fromisoformat(e['values']['startTime'].replace('Z','+00:00')).timestamp()
t0=min(t(e) for e in ev)
ev=[e for e in ev if t(e)-t0>=skip and e['values']['stackTrace']]
selfc=collections.Counter(); incl=collections.Counter(); cats=collections.Counter(); total=len(ev)
def name(fr):
    m=fr['method']; return m['type']['name'].split('/')[-1]+'.'+m['name']
for e in ev:
    frames=e['values']['stackTrace']['frames']
    selfc[name(frames[0])]+=1
    seen=set()
    for fr in frames:
        k=name(fr)
        if k not in seen: seen.add(k); incl[k]+=1
    s=' '.join(seen)
    if 'ColumnStatisticsCollector.observe' in s: c='statistics (TableWriter.appendAt)'
    elif 'ParquetChunkDecoder.copy' in s: c='page decode (ParquetChunkDecoder)'
    elif 'TableWriter.commit' in s or 'TableWriter.lambda$writeFinalFiles' in s or 'FileChecksum' in s or 'DictionaryEncoder' in s: c='commit (dictionary codes, Arrow files, CRCs)'
    elif 'ParquetSource.read' in s: c='rest of the row-group read (page reads, Snappy, batch set-up)'
    else: c='other (class loading, JFR, catalog)'
    cats[c]+=1
print(f"{f}: {total} execution samples after the first {skip} s")
for k,v in cats.most_common(): print(f"  {v*100/total:5.1f}%  {k}")
print("== self"); [print(f"{c*100/total:5.1f}% {k}") for k,c in selfc.most_common(n)]
print("== inclusive"); [print(f"{c*100/total:5.1f}% {k}") for k,c in incl.most_common(int(n*1.5))]
