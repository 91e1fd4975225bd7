import json,sys
# cmp.py torch.json label=file[,file...] ...: median us per case, side by side
def load(f):
    d=json.load(open(f)); return {(x['op'],x['dtype'],'x'.join(map(str,x['shape']))):x for x in d['records']}
t=load(sys.argv[1]) if sys.argv[1]!='-' else {}
cols=[]
for a in sys.argv[2:]:
    lab,fs=a.split('=');cols.append((lab,[load(f) for f in fs.split(',')]))
keys=sorted(cols[0][1][0].keys(), key=lambda k:(k[2],k[1],k[0]))
print("%-21s %-8s %-10s"%('op','dtype','shape'),' '.join('%-11s'%l for l,_ in cols),'torch')
for k in keys:
    row=['/'.join('%.1f'%r[k]['median_us'] if k in r else '-' for r in rs) for _,rs in cols]
    tt=t.get(k,{}).get('median_us',0)
    print("%-21s %-8s %-10s"%k,' '.join('%-11s'%x for x in row),'%5.1f'%tt)
