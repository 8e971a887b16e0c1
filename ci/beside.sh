# ci/beside.sh: sourced by ci/test.sh and ci/main-job.sh, which run some of their work beside the
# rest. `begin NAME CMD...` starts CMD (a program, or a function of the caller's) in the background
# with `set -e` in force, its output kept in $beside_logs/NAME.log; `finish NAME` waits for it,
# shows that output and returns its exit code, saying where it failed. Should the caller exit
# first (a step or run failing), what was begun is stopped.
declare -A begun=()

begin() {
    local name=$1
    shift
    (
        start=$SECONDS
        set +e
        # In a subshell of its own, not on the left of `||`, where bash would ignore `set -e`.
        (
            set -e
            "$@"
        )
        code=$?
        echo "== $name: exit $code after $((SECONDS - start)) s, beside the work after it"
        exit "$code"
    ) >"$beside_logs/$name.log" 2>&1 &
    begun[$name]=$!
}

finish() {
    local code=0 from=$SECONDS
    wait "${begun[$1]}" || code=$?
    unset "begun[$1]"
    echo "== $1 (waited for $((SECONDS - from)) s):"
    cat "$beside_logs/$1.log"
    if [ "$code" -ne 0 ]; then
        echo "$0: $1, run beside the rest, failed (exit $code): see above" >&2
    fi
    return "$code"
}

# `set -e` holds inside a trap too: each command may fail without turning the exit into 1.
trap 'for pid in "${begun[@]}"; do { pkill -P "$pid" || true; kill "$pid" || true; } 2>/dev/null; done' EXIT
