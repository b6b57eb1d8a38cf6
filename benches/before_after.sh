#!/usr/bin/env bash
# The same memcity command run by two binaries (before and after a change), in turns after one
# warm-up run of each, so that both see the same machine and the same page cache. Per binary:
# wall, user + system CPU and peak RSS (of /usr/bin/time) as minimum, median and maximum.
# Usage: benches/before_after.sh BEFORE AFTER ARG…   (@OUT@ in an ARG stands for a scratch folder)
#   e.g. benches/before_after.sh main/memcity target/release/memcity import big.hprof --out @OUT@/h.json
# RUNS=5 by default; both binaries are release builds (`cargo build --release --no-default-features`).
set -euo pipefail
before=$1 after=$2
shift 2
runs=${RUNS:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
args=()
for arg in "$@"; do
    args+=("${arg//@OUT@/$out}")
done

# One run of a binary: "wall cpu peak_kib" appended to $out/$2.
run() {
    /usr/bin/time -f "%e %U %S %M" -o "$out/time" "$1" "${args[@]}" >"$out/stdout" 2>"$out/stderr" || {
        echo "$1 ${args[*]}: failed:" >&2
        cat "$out/stderr" >&2
        exit 1
    }
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$out/time" >>"$out/$2"
}

run "$before" warm
run "$after" warm
for _ in $(seq "$runs"); do
    run "$before" before
    run "$after" after
done

# min / median / max of column $2 of file $1.
stats() {
    cut -d' ' -f"$2" "$out/$1" | sort -g | awk '{ v[NR] = $1 } END { printf "%s / %s / %s", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
for which in before after; do
    printf '%-6s wall %s s, CPU %s s, peak RSS %s KiB (min / median / max of %s)\n' "$which" \
        "$(stats $which 1)" "$(stats $which 2)" "$(stats $which 3)" "$runs"
done
