# phases.py RUN.json...: where the cases of the runs spent their wall time (s), summed, and how many
# samples the timed cases took.
import json,sys,collections
keys=['setup_ms','scale_ms','warm_ms','samples_ms','samples_gpu_ms','rewarm_ms','remeasure_ms','verify_ms','total_ms']
tot=collections.defaultdict(float); wall=0; n=collections.Counter()
for p in sys.argv[1:]:
    d=json.load(open(p)); wall+=d.get('wall_s') or 0
    for c in d['cases']:
        for k,v in (c.get('phases') or {}).items(): tot[k]+=v/1e3
        if c.get('samples_ms'): n[len(c['samples_ms'])]+=1
print('wall %.1f'%wall, ' '.join('%s %.1f'%(k[:-3],tot[k]) for k in keys), dict(sorted(n.items())))
