import json,subprocess,collections,sys
out=subprocess.run(['jfr','print','--json','--stack-depth','200','--events','jdk.ExecutionSample',sys.argv[1]],capture_output=True,text=True).stdout
ev=json.loads(out)['recording']['events']
cats=collections.Counter(); tot=0
for e in ev:
    st=e['values']['stackTrace']
    if not st: continue
    tot+=1
    s=' '.join(f['method']['type']['name'].split('/')[-1]+'.'+f['method']['name'] for f in st['frames'])
    if 'ColumnStatisticsCollector' in s: c='statistics (TableWriter.appendAt)'
    elif 'ParquetChunkDecoder' in s: c='page decode (ParquetChunkDecoder)'
    elif 'DictionaryEncoder' in s or 'FileChecksum' in s or 'writeFinalFiles' in s or 'TableWriter.commit' in s: c='commit (dictionary codes, Arrow files, CRCs)'
    elif 'ParquetSource' in s: c='rest of the row-group read (page reads, Snappy, batch set-up)'
    else: c='other (class loading, JFR, catalog)'
    cats[c]+=1
print(f"{sys.argv[1]}: {tot} execution samples")
for k,v in cats.most_common(): print(f"  {v*100/tot:5.1f}%  {k}")
