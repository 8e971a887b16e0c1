#!/usr/bin/env bash
# ci/examples-check.sh: the cluster examples hold together with no cluster: examples/kubernetes/'s
# manifests, and its Kustomize overlay site/ as kubectl renders it, validate against the Kubernetes
# API's schemas (kubernetes-validate from PyPI, in a virtual environment of its own, strict: no
# unknown field), and examples/slurm/'s scripts parse
# (bash -n); ci/slurm.sh then runs their pattern on a real Slurm. examples/prometheus/'s alerts go
# through promtool's checks and unit tests, examples/grafana/'s dashboard queries through promtool's
# expression tests, examples/systemd/'s units through systemd-analyze verify. Called by ci/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/examples-venv
if [ ! -x "$venv/bin/kubernetes-validate" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet kubernetes-validate
fi
# The manifests (less Kustomize's own files and the overlay's patch), and the health service as a
# site renders it: the overlay examples/kubernetes/site/ with a reference beside it, through
# kubectl's Kustomize, as `kubectl apply -k` would.
mapfile -t manifests < <(find examples/kubernetes -name '*.yaml' ! -name kustomization.yaml ! -path '*/site/*' | sort)
if ! command -v kubectl >/dev/null; then
    echo "ci/examples-check.sh: kubectl (with its Kustomize) is needed to render examples/kubernetes/site/: install kubectl" >&2
    exit 1
fi
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
cp -r examples/kubernetes "$site/"
cp results/fleetday/h100-x4.reference.json "$site/kubernetes/site/reference.json"
kubectl kustomize "$site/kubernetes/site" >"$site/rendered.yaml"
# Against the newest schemas it bundles and against 1.33, the oldest the Jobs run on
# (backoffLimitPerIndex and podFailurePolicy's FailIndex are GA there): no field of a later one.
"$venv/bin/kubernetes-validate" --strict "${manifests[@]}" "$site/rendered.yaml"
"$venv/bin/kubernetes-validate" --strict --quiet --kubernetes-version 1.33.0 \
    "${manifests[@]}" "$site/rendered.yaml"
# The render: the site's image, the DaemonSet mounting the generated ConfigMap (its name hashed),
# everything in the namespace.
"$venv/bin/python" - "$site/rendered.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
kinds = {d["kind"]: d for d in docs}
daemon, config = kinds["DaemonSet"], kinds["ConfigMap"]
pod = daemon["spec"]["template"]["spec"]
mounted = [v["configMap"]["name"] for v in pod["volumes"] if "configMap" in v]
problems = []
if mounted != [config["metadata"]["name"]] or config["metadata"]["name"] == "perftest-reference":
    problems.append(f"the DaemonSet mounts {mounted}, not the generated {config['metadata']['name']}")
if "reference.json" not in config["data"]:
    problems.append("the ConfigMap holds no reference.json")
if pod["containers"][0]["image"].endswith(":latest"):
    problems.append("the overlay's image tag was not applied")
if any(d["metadata"].get("namespace", "perftest") != "perftest" for d in docs if d["kind"] != "Namespace"):
    problems.append("a resource outside the perftest namespace")
if problems:
    sys.exit("examples/kubernetes/site/: " + "; ".join(problems))
print(f"== examples/kubernetes/site/ renders: {', '.join(d['kind'] for d in docs)}")
PY
# What the API server checks beyond the schemas (a podFailurePolicy needs restartPolicy Never,
# FailIndex an Indexed Job with backoffLimitPerIndex, an exit-code rule a container of the pod),
# what these examples promise (no root, no privilege, a memory limit; a DaemonSet on GPU nodes
# tolerates their taint), and that each container's
# `sh -c` script parses.
"$venv/bin/python" - "${manifests[@]}" "$site/rendered.yaml" <<'PY'
import subprocess, sys, yaml
problems = []
for path in sys.argv[1:]:
    for doc in yaml.safe_load_all(open(path)):
        if not doc or doc.get("kind") not in ("Job", "DaemonSet"):
            continue
        spec, pod = doc["spec"], doc["spec"]["template"]["spec"]
        say = lambda text: problems.append(f"{path}: {text}")
        wants_gpu = any("nvidia.com/gpu" in c.get("resources", {}).get("limits", {}) for c in pod["containers"])
        if (doc["kind"] == "DaemonSet" or wants_gpu) and not any(
            t.get("key") == "nvidia.com/gpu" and t.get("operator") == "Exists" for t in pod.get("tolerations", [])
        ):
            say("a pod on GPU nodes must tolerate the nvidia.com/gpu taint")
        labels = doc["spec"]["template"].get("metadata", {}).get("labels", {})
        for spread in pod.get("topologySpreadConstraints", []):
            chosen = spread.get("labelSelector", {}).get("matchLabels", {})
            if not chosen or any(labels.get(k) != v for k, v in chosen.items()):
                say(f"a topology spread selects {chosen}, not its own pods ({labels})")
        names = {c["name"] for c in pod["containers"]}
        rules = spec.get("podFailurePolicy", {}).get("rules", [])
        if rules and pod.get("restartPolicy") != "Never":
            say("a podFailurePolicy needs restartPolicy: Never")
        if "backoffLimitPerIndex" in spec and spec.get("completionMode") != "Indexed":
            say("backoffLimitPerIndex needs completionMode: Indexed")
        for rule in rules:
            if rule["action"] == "FailIndex" and "backoffLimitPerIndex" not in spec:
                say("FailIndex needs backoffLimitPerIndex")
            codes = rule.get("onExitCodes")
            if codes and codes.get("containerName", min(names)) not in names:
                say(f"onExitCodes names no container of the pod: {codes['containerName']}")
            if codes and codes["operator"] == "In" and 0 in codes["values"]:
                say("onExitCodes In cannot hold 0")
        for c in pod["containers"]:
            context = {**pod.get("securityContext", {}), **c.get("securityContext", {})}
            if not context.get("runAsNonRoot") or context.get("runAsUser", 0) == 0:
                say(f"{c['name']}: runs as root")
            if context.get("allowPrivilegeEscalation") is not False:
                say(f"{c['name']}: privilege escalation allowed")
            if not context.get("readOnlyRootFilesystem"):
                say(f"{c['name']}: a writable root file system")
            if context.get("capabilities", {}).get("drop") != ["ALL"]:
                say(f"{c['name']}: capabilities not all dropped")
            if "memory" not in c.get("resources", {}).get("limits", {}):
                say(f"{c['name']}: no memory limit")
            if c.get("command", [])[-1:] == ["-c"]:
                script = c["args"][0]
                parsed = subprocess.run(["sh", "-n", "-c", script], capture_output=True, text=True)
                if parsed.returncode:
                    say(f"{c['name']}: its script does not parse: {parsed.stderr.strip()}")
if problems:
    sys.exit("\n".join(problems))
PY
for script in examples/slurm/*; do
    bash -n "$script"
done
# The alerts: promtool checks the rule file and runs its unit tests (each alert fires where it
# should and stays quiet where it should), and the PrometheusRule that prometheus-rule.sh prints
# holds the same groups.
promtool=$(bash ci/promtool.sh)
"$promtool" check rules examples/prometheus/perftest-alerts.yml
(cd examples/prometheus && "$promtool" test rules perftest-alerts.test.yml)
bash examples/prometheus/prometheus-rule.sh | "$venv/bin/python" -c '
import sys, yaml
made = yaml.safe_load(sys.stdin)
rules = yaml.safe_load(open("examples/prometheus/perftest-alerts.yml"))
if made["kind"] != "PrometheusRule" or made["spec"] != rules:
    sys.exit("examples/prometheus/prometheus-rule.sh: its PrometheusRule is not perftest-alerts.yml")
'
# The dashboard: every panel's query is in perftest-dashboard.test.yml (its `$gpu` as "All"), which
# promtool runs on synthetic series; the provisioning file parses.
(cd examples/grafana && "$promtool" test rules perftest-dashboard.test.yml)
"$venv/bin/python" -c '
import json, sys, yaml
board = json.load(open("examples/grafana/perftest-dashboard.json"))
tests = yaml.safe_load(open("examples/grafana/perftest-dashboard.test.yml"))["tests"]
tested = {t["expr"].strip() for test in tests for t in test.get("promql_expr_test", [])}
queries = [t["expr"].replace("$gpu", ".*") for p in board["panels"] for t in p["targets"]]
missing = [q for q in queries if q not in tested]
ids = [p["id"] for p in board["panels"]]
yaml.safe_load(open("examples/grafana/provisioning.yml"))["providers"][0]["options"]["path"]
if missing or len(set(ids)) != len(ids):
    sys.exit(f"examples/grafana: queries no test holds: {missing}; panel ids {ids}")
print(f"== dashboard: {len(queries)} queries, each tested")
'
# The systemd units: systemd-analyze verify, the service's perftest the one just built (verify
# refuses a command that is not there).
units=$(mktemp -d)
trap 'rm -rf "$site" "$units"' EXIT
sed "s|/usr/local/bin/perftest|$PWD/target/release/perftest|" examples/systemd/perftest-health.service \
    >"$units/perftest-health.service"
cp examples/systemd/perftest-health.timer "$units/"
# It exits 0 on a line it ignores (`Failed to parse service type, ignoring`): any word fails here.
said=$(systemd-analyze verify "$units/perftest-health.service" "$units/perftest-health.timer" 2>&1)
if [ -n "$said" ]; then
    echo "examples/systemd: systemd-analyze verify: $said" >&2
    exit 1
fi
echo "== examples: ${#manifests[@]} manifests and the site's render valid, $(ls examples/slurm/* | wc -l) Slurm scripts parse, \
$(grep -c '^      - alert:' examples/prometheus/perftest-alerts.yml) alerts tested, systemd units verified"
