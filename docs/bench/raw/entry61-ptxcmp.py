import re,sys
def parse(p):
    d={};cur=None;spill=None
    for l in open(p):
        m=re.search(r"Compiling entry function '(\w+)'",l)
        if m: cur=m.group(1); continue
        m=re.search(r'(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads',l)
        if m and cur: spill=(int(m.group(2)),int(m.group(3))); continue
        m=re.search(r'Used (\d+) registers',l)
        if m and cur: d[cur]=(int(m.group(1)),)+spill; cur=None
    return d
a=parse(sys.argv[1]);b=parse(sys.argv[2])
n=0
for k in sorted(a):
    if a[k]!=b.get(k): n+=1; print(k,a[k],'->',b.get(k))
print(n,'of',len(a),'changed')
