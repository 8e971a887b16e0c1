# per_clock.py A.json[+A2.json] B.json[+B2.json]: median |difference| of two runs (halves joined with +),
# of the rates and of the rates per clock as read (the reading above the board maximum where flagged).
import json,sys,statistics as st
def load(ps):
    r={}
    for p in ps.split('+'):
        d=json.load(open(p))
        for c in d['cases']:
            if not c.get('rate'): continue
            raw=c.get('clock_mhz')
            for f in c.get('flags') or []:
                if isinstance(f,dict) and 'above_max' in f: raw=f['above_max']['mhz']
            r[c['name']]=(c['rate']['value'],raw)
    return r
a=load(sys.argv[1]); b=load(sys.argv[2])
ks=[k for k in a if k in b]
d=sorted(abs(a[k][0]/b[k][0]-1) for k in ks)
pk=[k for k in ks if a[k][1] and b[k][1]]
pc=sorted(abs((a[k][0]/a[k][1])/(b[k][0]/b[k][1])-1) for k in pk)
print(f"{sys.argv[1]} vs {sys.argv[2]}: {len(ks)} cases, rate median |d| {st.median(d)*100:.3f}% p90 {d[int(.9*len(d))]*100:.2f}%; per clock ({len(pk)}) median |d| {st.median(pc)*100:.3f}%")
