import sys, statistics as st
def load(f):
    hdr=None; rows=[]
    for l in open(f):
        if l.startswith('#'): hdr=l.strip(); continue
        p=list(map(int,l.split()))
        rows.append(p)
    return hdr, rows
def q(xs, ps=(10,50,90)):
    xs=sorted(xs); n=len(xs)
    return ' '.join('p%d=%.2f'%(p, xs[min(n-1,int(p/100*n))]/1000) for p in ps)
for f in sys.argv[1:]:
    hdr, R = load(f)
    cl = int(hdr.split('clusters of ')[1].split(';')[0])
    print('==', f, hdr)
    end = max(r[7] for r in R); print('blocks', len(R), 'span us %.2f'%(end/1000))
    # phases
    names=['load','part','meet','out','read']
    for i,n in enumerate(names):
        d=[r[3+i]-r[2+i] for r in R]
        print('  %-5s'%n, q(d))
    life=[r[7]-r[2] for r in R]; print('  life ', q(life))
    # waves: first-wave = blocks starting within 1us of first
    sms=sorted(set(r[1] for r in R)); print('  SMs used', len(sms))
    # occupancy over time per SM
    import collections
    bysm=collections.defaultdict(list)
    for r in R: bysm[r[1]].append(r)
    # resident blocks per SM sampled every 0.5us
    T=list(range(0,end,500))
    occ=[sum(1 for r in R if r[2]<=t<r[7])/len(sms) for t in T]
    print('  mean resident blocks/SM over time (0.5us steps):')
    print('   ', ' '.join('%.1f'%o for o in occ))
    # cluster start spread and empty-slot gaps
    C=[R[i:i+cl] for i in range(0,len(R),cl)]
    sp=[max(r[2] for r in c)-min(r[2] for r in c) for c in C]
    print('  cluster start spread', q(sp))
    esp=[max(r[7] for r in c)-min(r[7] for r in c) for c in C]
    print('  cluster end spread', q(esp))
    # meet wait: meet stamp - max part stamp in cluster
    mw=[r[5]-max(x[4] for x in c) for c in C for r in c]
    print('  meet after last part', q(mw))
    pw=[max(x[4] for x in c)-r[4] for c in C for r in c]
    print('  wait for slowest part', q(pw))
    # per SM: gap between a block end and next block start on that SM (sorted)
    gaps=[]
    for s,rs in bysm.items():
        ends=sorted(r[7] for r in rs); starts=sorted(r[2] for r in rs)
        # match k-th start after first wave to ends: approximate new start - latest end before it
        for r in rs:
            prev=[e for e in ends if e<=r[2]]
            if prev: gaps.append(r[2]-max(prev))
    print('  SM slot gap (start - last end before it on same SM)', q(gaps) if gaps else '-')
    # first wave
    fw=sorted(r[2] for r in R)
    lastst=fw[-1]; print('  last block start %.2f us; tail after last start %.2f us'%(lastst/1000,(end-lastst)/1000))
    firstend=min(r[7] for r in R); print('  first block end %.2f us'%(firstend/1000))
    by=sorted(R,key=lambda r:r[2])
    n=len(R); 
    for part,(a,b) in [('first 10%',(0,n//10)),('mid',(n//2-n//20,n//2+n//20)),('last 10%',(n-n//10,n))]:
        sub=by[a:b]
        print('  %s: load %s | life %s'%(part, q([r[3]-r[2] for r in sub],(50,)), q([r[7]-r[2] for r in sub],(50,))))
