# compare.py A.json B.json [N]: median |difference| of the rates of two runs, by family, and the N
# cases furthest apart beyond 1% and three times their noise (cv).
import json,sys,statistics as st,collections
def load(p):
    d=json.load(open(p)); r={}
    for c in d['cases']:
        if c.get('rate'): r[c['name']]=(c['rate']['value'],c.get('clock_mhz'),c['family'],c.get('cv') or 0,c.get('flags') or [])
    return r
a=load(sys.argv[1]); b=load(sys.argv[2])
common=[k for k in a if k in b]
d=[a[k][0]/b[k][0]-1 for k in common]
ad=sorted(abs(x) for x in d)
print(f"{len(common)} common; median |d| {st.median(ad)*100:.3f}% p90 {ad[int(.9*len(ad))]*100:.2f}% median d {st.median(d)*100:.3f}%")
fam=collections.defaultdict(list)
for k in common: fam[a[k][2]].append(a[k][0]/b[k][0]-1)
print('  '+'; '.join(f"{f} {st.median([abs(x) for x in v])*100:.3f}% ({st.median(v)*100:+.3f})" for f,v in fam.items()))
cl=[(a[k][1],b[k][1]) for k in common if a[k][1] and b[k][1]]
if cl: print('  clocks median', st.median([x for x,y in cl]), st.median([y for x,y in cl]))
out=[(k,a[k][0]/b[k][0]-1) for k in common if abs(a[k][0]/b[k][0]-1)>max(0.01,3*max(a[k][3],b[k][3]))]
print('  beyond 1% and 3x noise:',len(out)); 
for k,x in sorted(out,key=lambda t:-abs(t[1]))[:int(sys.argv[3]) if len(sys.argv)>3 else 12]: print(f"    {x*100:+.2f}% {k} cv {a[k][3]*100:.2f}/{b[k][3]*100:.2f}")
