import json,sys,statistics
def load(f):
    d=json.load(open(f)); r={}
    for x in d['records']:
        if x['impl']!='gosoftmax': continue
        r[(x['op'],x['dtype'],'x'.join(map(str,x['shape'])))]=(x['median_us'],x['note'].split(';')[1].split(',')[0].strip())
    return r
a,b,n=sys.argv[1],sys.argv[2],int(sys.argv[3])
A=[load(f'ab-{a}-{i}.json') for i in range(1,n+1)]; B=[load(f'ab-{b}-{i}.json') for i in range(1,n+1)]
for k in A[0]:
    ta=[x[k][0] for x in A]; tb=[x[k][0] for x in B]
    ch=sum(tb)/sum(ta)-1
    print('%+6.2f%%  %-15s %-8s %-11s %-14s %s | %s'%(ch*100,k[0],k[1],k[2],A[0][k][1],'/'.join('%.2f'%t for t in ta),'/'.join('%.2f'%t for t in tb)))
