#!/usr/bin/env bash
# ci/examples-check.sh: the cluster examples hold together with no cluster: examples/kubernetes/'s
# manifests validate against the Kubernetes API's schemas (kubernetes-validate from PyPI, in a
# virtual environment of its own, strict: no unknown field), and examples/slurm/'s scripts parse
# (bash -n); ci/slurm.sh then runs their pattern on a real Slurm. Called by ci/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/examples-venv
if [ ! -x "$venv/bin/kubernetes-validate" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet kubernetes-validate
fi
"$venv/bin/kubernetes-validate" --strict examples/kubernetes/*.yaml
for script in examples/slurm/*; do
    bash -n "$script"
done
echo "== examples: $(ls examples/kubernetes/*.yaml | wc -l) manifests valid, $(ls examples/slurm/* | wc -l) Slurm scripts parse"
