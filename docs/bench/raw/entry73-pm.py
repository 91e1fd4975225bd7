# entry 73: prints the PM-sampling series of one ncu report exported with
# `ncu --import R --page raw --csv --print-metric-instances values`: a few
# chosen metrics over the samples where the kernel ran (1.5 us a sample on
# the H200). Usage: python3 entry73-pm.py raw.csv
import csv,sys,re
f=sys.argv[1]
rows=list(csv.reader(open(f)))
hdr=rows[0]; data=rows[2] if len(rows)>2 else rows[1]
series={}
for i,h in enumerate(hdr):
    v=data[i]
    m=re.search(r'\(([^)]*)\)',v)
    if m:
        try: xs=[float(x.replace(',','')) if x.strip() not in('','n/a') else 0.0 for x in m.group(1).split(";")]
        except ValueError: continue
        series[h]=xs
want=['dramc__read_throughput','dramc__write_throughput','lts__t_sector_throughput_srcunit_tex.avg','lts__average_t_sector_hit_rate_srcunit_tex','gr__ctas_launched_realtime','sm__inst_executed_realtime.avg.pct','l1tex__throughput']
keys=[next((h for h in series if w in h),None) for w in want]
print([k and k.split('.')[-2][:20] for k in keys])
n=max(len(series[k]) for k in keys if k)
print('samples',n)
# list other series names that look like time
for h in series:
    if 'time' in h.lower() or 'cycle' in h.lower() and 'pct' not in h: print('  ',h[:100], series[h][:5], len(series[h]))
act=[i for i in range(n) if any(series[k][i]>0.5 for k in keys[:3] if k and i<len(series[k]))]
lo,hi=(min(act),max(act)) if act else (0,0)
print('active samples',lo,hi)
for i in range(max(0,lo-2),min(n,hi+3)):
    print('%4d'%i, ' '.join('%7.1f'%(series[k][i] if k and i<len(series[k]) else -1) for k in keys))
