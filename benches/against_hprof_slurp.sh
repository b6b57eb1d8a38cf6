#!/usr/bin/env bash
# memcity's first import of a heap dump (`import --no-index`, dominators, retained sizes and
# retainer paths) against hprof-slurp's scan of it (a class histogram only: the speed peer of
# issue 35), in turns (import, hprof-slurp, import, …) after one warm-up run of each, with the
# dump read into the page cache first. With LIMIT, memcity runs inside a memory cgroup of that
# many bytes (cgroup v1, made below this shell's own and removed at the end; it needs root), as
# a user's container would, and hprof-slurp outside it, as the issue's figures do. Per command:
# wall, user + system CPU and peak RSS (of /usr/bin/time) as minimum, median and maximum, then
# the ratios memcity / hprof-slurp of each pair's wall and CPU time, likewise.
# Usage: benches/against_hprof_slurp.sh MEMCITY DUMP [LIMIT]
#   e.g. benches/against_hprof_slurp.sh target/release/memcity big.hprof 2G
# DUMP is a plain HPROF file: hprof-slurp reads no gzip.
# MEMCITY is a release binary (`cargo build --release --no-default-features`); hprof-slurp comes
# from `cargo install hprof-slurp --version 0.10.0`. RUNS=5 by default.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 MEMCITY DUMP [LIMIT]" >&2; exit 2; }
memcity=$1
dump=$2
limit=${3:-}
runs=${RUNS:-5}
command -v hprof-slurp >/dev/null || { echo "hprof-slurp not found: cargo install hprof-slurp --version 0.10.0" >&2; exit 2; }
out=$(mktemp -d)
group=
cleanup() {
    rm -rf "$out"
    [ -z "$group" ] || rmdir "$group" 2>/dev/null || true
}
trap cleanup EXIT

if [ -n "$limit" ]; then
    own=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
    group=/sys/fs/cgroup/memory${own%/}/memcity-bench-$$
    mkdir "$group" 2>/dev/null || {
        echo "cannot make the memory cgroup $group (cgroup v1, as root)" >&2
        group=
        exit 1
    }
    echo "$limit" 2>/dev/null >"$group/memory.limit_in_bytes" || {
        echo "LIMIT $limit: not a size the memory cgroup takes (bytes, or with K, M or G)" >&2
        exit 2
    }
fi

# One run of A (memcity) or B (hprof-slurp): "wall cpu peak_kib" appended to $out/$1. The dump
# is read first, outside the cgroup, so that its pages are in the page cache for both and are
# not charged to the cgroup.
run() {
    local what=$1
    cat "$dump" >/dev/null
    case "$what" in
    A) set -- "$memcity" import --no-index "$dump" -o "$out/history.json" ;;
    B) set -- hprof-slurp "$dump" ;;
    esac
    local inside=()
    if [ "$what" = A ] && [ -n "$group" ]; then
        # Joined, or the run fails: a figure taken outside the cgroup would read as one inside.
        inside=(sh -c "echo \$\$ > '$group/cgroup.procs' && grep -q '${group##*/}' /proc/self/cgroup && exec \"\$0\" \"\$@\"")
    fi
    timed "$what" "" "${inside[@]}" "$@"
}

# shellcheck source=benches/in_turns.sh
source "$(dirname "${BASH_SOURCE[0]}")/in_turns.sh"
in_turns A B

where=${limit:+ inside a memory cgroup of $limit}
printf '%d runs each of\n  A: %s import --no-index %s -o FILE%s\n  B: hprof-slurp %s\n' \
    "$runs" "$memcity" "$dump" "$where" "$dump"
summary memcity hprof-slurp
