#!/usr/bin/env bash
# results/verdicts-at-scale/host4/judge.sh BIN SCREENS HEALTH: the verdicts of this folder from the
# runs host4.sh kept (SCREENS: the folder with full1/ and full2/; HEALTH: health's --keep folder),
# judged by BIN here; each GPU's largest family effect and its effect over every case.
set -uo pipefail
bin=$1 screens=$2 health=$3 here=$(dirname "$0")
for n in 1 2; do "$bin" fleet "$screens/full$n" > "$here/fleet-full$n.txt"; echo "fleet full$n: exit $?"; done
"$bin" fleet "$screens/full1" "$screens/full2" > "$here/fleet-both.txt"; echo "fleet both: exit $?"
"$bin" fleet "$health"/*/model1 --reference "$here/h200.reference.json" > "$here/health-rejudged.txt"
echo "health's runs against the reference: exit $?"
for v in full1 full2 both; do
    "$bin" fleet $( [ $v = both ] && echo "$screens/full1 $screens/full2" || echo "$screens/$v" ) --format json > "/tmp/$v.json"
done
"$bin" fleet "$health"/*/model1 --reference "$here/h200.reference.json" --format json > /tmp/health.json
python3 - /tmp/full1.json /tmp/full2.json /tmp/both.json /tmp/health.json <<'PY'
import json, sys
for f, what in zip(sys.argv[1:], ["screen 1", "screen 2", "both screens (2 runs a GPU)", "health's screen against the reference"]):
    g = json.load(open(f))["groups"][0]
    print(what)
    for s in g["ranking"]:
        fam = [e for e in s["effects"] if e.get("family")]
        big = max(fam, key=lambda e: abs(e["change"]))
        every = [e for e in s["effects"] if not e.get("family")][0]
        print(f"  {s['label']}: {s['state']}; largest family {big['family']} {100 * big['change']:+.2f}% "
              f"(± {100 * big['uncertainty']:.2f}%, {big['cases']} cases); every case {100 * every['change']:+.2f}% "
              f"(± {100 * every['uncertainty']:.3f}%); {s['slower']} cases slower, {s['faster']} faster outside")
PY
