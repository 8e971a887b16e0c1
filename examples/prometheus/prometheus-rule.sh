#!/usr/bin/env bash
# examples/prometheus/prometheus-rule.sh [NAMESPACE]: prints perftest-alerts.yml as a
# PrometheusRule for the Prometheus Operator (kube-prometheus-stack), the same rules from the one
# file: `bash prometheus-rule.sh monitoring | kubectl apply -f -`. The `release` label is what the
# stack's default ruleSelector asks for; set PERFTEST_RULE_LABELS (`release: prom`) to yours.
set -euo pipefail
rules="$(dirname "$0")/perftest-alerts.yml"
cat <<HEAD
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: perftest
  namespace: ${1:-monitoring}
  labels:
    ${PERFTEST_RULE_LABELS:-release: kube-prometheus-stack}
spec:
HEAD
# The rule file's groups, less its comments, two spaces in.
grep -v '^#' "$rules" | sed 's/^/  /'
