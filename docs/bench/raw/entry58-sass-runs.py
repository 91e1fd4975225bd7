import csv,sys,collections,re
exec(open('entry58-sass-opcodes.py').read().split('for f in sys.argv')[0])
d=load(sys.argv[1]); tot=sum(x[2] for x in d)
# group into runs by execution count
runs=[];cur=None
for a,s,n,w in d:
    if n==0: 
        cur=None; continue
    if cur and abs(n-cur[2])<=max(1,cur[2]*0.01): cur[1]=a; cur[3]+=1; cur[4]+=n; cur[5].append(s)
    else:
        cur=[a,a,n,1,n,[s]]; runs.append(cur)
runs.sort(key=lambda r:-r[4])
for r in runs[:25]:
    ops=collections.Counter(re.sub(r'^@!?U?P\w+\s+','',s).split()[0].split('.')[0] for s in r[5])
    print(f"{r[0]:#x}-{r[1]:#x} count={r[2]} len={r[3]} share={r[4]/tot*100:.1f}%", dict(ops.most_common(8)))
