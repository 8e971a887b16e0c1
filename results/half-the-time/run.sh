#!/usr/bin/env bash
# results/half-the-time/run.sh: on a lent GPU, from the repository root, after
# tools/h100-prepare.sh here: times every case with one binary in the two halves that each fit a
# device call (the families up to dispatch, then branch, alu, coopmat and gemm), and keeps each
# half's JSON, text and wall time under $OUT/LABEL-HALF.*.
# Usage: bash results/half-the-time/run.sh LABEL BINARY HALVES [perftest options]
#   HALVES: a, b or ab.
set -uo pipefail
# shellcheck source=tools/device-env.sh
source tools/device-env.sh
label=$1 binary=$2 halves=$3
shift 3
for half in $(echo "$halves" | grep -o .); do
    case $half in
        a) families=load,texture,uav,address,broadcast,conv,sweep,latency,shared,host,copy,store,atomic,dispatch ;;
        b) families=branch,alu,coopmat,gemm ;;
    esac
    start=$(date +%s%N)
    "$binary" --family "$families" --json "$out/$label-$half.json" "$@" >"$out/$label-$half.txt" 2>&1
    rc=$?
    end=$(date +%s%N)
    echo "$label $half exit $rc wall $(( (end - start) / 1000000 )) ms" | tee -a "$out/walls.txt"
done
