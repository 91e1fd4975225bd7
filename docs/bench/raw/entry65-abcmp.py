# entry 63's comparison, three rounds; the last columns: the median round against the first variant's
import json,sys
vs=sys.argv[2:]; pre=sys.argv[1]
tab={}
for v in vs:
  for r in (1,2,3):
    d=json.load(open(f'{pre}-{v}-{r}.json'))
    for x in d['records']:
      s=x['shape'] if isinstance(x['shape'],str) else 'x'.join(map(str,x['shape']))
      k=(x['op'],x['dtype'],s)
      tab.setdefault(k,{}).setdefault(v,[]).append(x['median_us'])
print('%-15s %-8s %-10s'%('op','dtype','shape')+''.join('%14s'%v for v in vs))
for k,m in tab.items():
  print('%-15s %-8s %-10s'%k+''.join('%14s'%('%.2f-%.2f'%(min(m[v]),max(m[v]))) for v in vs)+''.join('%9s'%('%+.1f%%'%(100*(sorted(m[v])[1]/sorted(m[vs[0]])[1]-1))) for v in vs[1:]))
