# entry 69's comparison (entry 68's script): every JSON named PRE-VARIANT-ROUND*.json (a
# variant's round may be split over several files), min-max a variant,
# then the median round against the first variant's
import json, sys, glob
pre, vs = sys.argv[1], sys.argv[2:]
tab = {}
for v in vs:
    for r in (1, 2, 3):
        for f in sorted(glob.glob(f'{pre}-{v}-{r}*.json')):
            for x in json.load(open(f))['records']:
                s = x['shape'] if isinstance(x['shape'], str) else 'x'.join(map(str, x['shape']))
                tab.setdefault((x['op'], x['dtype'], s), {}).setdefault(v, []).append((x['median_us'], x.get('pct_copy')))
print('%-15s %-8s %-11s' % ('op', 'dtype', 'shape') + ''.join('%15s' % v for v in vs) + '  median vs ' + vs[0])
for k, m in sorted(tab.items()):
    if any(v not in m for v in vs):
        continue
    med = {v: sorted(t for t, _ in m[v])[len(m[v]) // 2] for v in vs}
    row = '%-15s %-8s %-11s' % k + ''.join('%15s' % ('%.2f-%.2f' % (min(t for t, _ in m[v]), max(t for t, _ in m[v]))) for v in vs)
    row += ''.join('%9s' % ('%+.1f%%' % (100 * (med[v] / med[vs[0]] - 1))) for v in vs[1:])
    pc = [p for _, p in m[vs[-1]] if p]
    if pc:
        row += '   %s %.1f-%.1f%% of copy' % (vs[-1], min(pc), max(pc))
    print(row)
