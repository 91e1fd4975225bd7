import json,sys,statistics
def load(f):
    d=json.load(open(f)); r={}
    for x in d['records']:
        if x['impl']!='gosoftmax': continue
        r[(x['op'],x['dtype'],'x'.join(map(str,x['shape'])))]=x['median_us']
    return r
a=sys.argv[1]; b=sys.argv[2]
A=[load(f'ab-{a}-{i}.json') for i in (1,2)]; B=[load(f'ab-{b}-{i}.json') for i in (1,2)]
rows=[]
for k in A[0]:
    if k not in B[0]: continue
    ta=[x[k] for x in A]; tb=[x[k] for x in B]
    ch=(sum(tb)/2)/(sum(ta)/2)-1
    rows.append((ch,k,ta,tb))
rows.sort()
for ch,k,ta,tb in rows:
    if abs(ch)>=float(sys.argv[3]) : print('%+6.1f%%  %-15s %-8s %-18s %s  %s'%(ch*100,k[0],k[1],k[2],'/'.join('%.1f'%t for t in ta),'/'.join('%.1f'%t for t in tb)))
chs=[r[0] for r in rows]
print(len(rows),'rows; median %+.2f%%'%(statistics.median(chs)*100))
for dt in ['float32','float16','bfloat16']:
    c=[r[0] for r in rows if r[1][1]==dt and A[0][r[1]]>20]
    print(dt,'rows>20us',len(c),'median %+.2f%% min %+.1f%% max %+.1f%%'%(statistics.median(c)*100,min(c)*100,max(c)*100))
