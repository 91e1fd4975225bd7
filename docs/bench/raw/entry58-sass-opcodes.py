import csv,sys,collections,re
def load(f):
    rows=list(csv.reader(open(f)))
    hdr=rows[1]; ia=hdr.index("Address"); isrc=hdr.index("Source"); ie=hdr.index("Instructions Executed"); iw=hdr.index("Warp Stall Sampling (All Samples)")
    out=[]
    for r in rows[2:]:
        if len(r)<=ie: continue
        try: n=int(r[ie] or 0)
        except: continue
        out.append((int(r[ia],16) if r[ia].startswith('0x') else int(r[ia]), r[isrc], n, int(r[iw] or 0)))
    return out
for f in sys.argv[1:]:
    d=load(f); tot=sum(x[2] for x in d); st=sum(x[3] for x in d)
    ops=collections.Counter()
    for a,s,n,w in d:
        op=re.sub(r'^@!?U?P\w+\s+','',s).split()[0].split('.')[0] if s.strip() else '?'
        ops[op]+=n
    print(f, "total warp-insts", tot, "samples", st)
    print("  ", [(k, round(v/tot*100,1)) for k,v in ops.most_common(25)])
