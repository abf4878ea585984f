import json,subprocess,sys,collections
f=sys.argv[1]; n=int(sys.argv[2]) if len(sys.argv)>2 else 40
out=subprocess.run(['jfr','print','--json','--stack-depth','200','--events','jdk.ExecutionSample',f],capture_output=True,text=True).stdout
ev=json.loads(out)['recording']['events']
selfc=collections.Counter(); incl=collections.Counter(); total=0
def name(fr):
    m=fr['method']; t=m['type']['name'].split('.')[-1]; return t+'.'+m['name']
for e in ev:
    st=e['values']['stackTrace']
    if not st: continue
    frames=st['frames']; total+=1
    selfc[name(frames[0])]+=1
    seen=set()
    for fr in frames:
        k=name(fr)
        if k not in seen: seen.add(k); incl[k]+=1
print(f"samples {total}")
print("== self"); [print(f"{c*100/total:5.1f}% {k}") for k,c in selfc.most_common(n)]
print("== inclusive"); [print(f"{c*100/total:5.1f}% {k}") for k,c in incl.most_common(int(n*1.5))]
