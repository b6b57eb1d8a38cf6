#!/usr/bin/env bash
# memcity's import of each snapshot beside Node's bare JSON.parse of the same text, one after
# the other in one run: wall and CPU seconds and peak RSS of `memcity import` (best of RUNS),
# then JSON.parse's best wall and its CPU time (json_parse.js; the text is read before timing).
# Usage: benches/js/side_by_side.sh MEMCITY FILE... (RUNS=3 by default; MEMCITY is a release
# binary, e.g. target/release/memcity after `cargo build --release`).
set -euo pipefail
memcity=$1
shift
runs=${RUNS:-3}
here=$(dirname "$0")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-28s %10s %8s %8s %10s %12s %10s\n' snapshot MB import_s cpu_s MB/s peak_MiB json_parse_s
for file in "$@"; do
    mb=$(stat -c %s "$file" | awk '{printf "%.1f", $1 / 1e6}')
    best=""
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %U %S %M" -o "$out/time" "$memcity" import "$file" --out "$out/h.json" >/dev/null 2>&1
        read -r wall user sys rss <"$out/time"
        if [ -z "$best" ] || awk -v a="$wall" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
            best="$wall $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') $rss"
        fi
    done
    read -r wall cpu rss <<<"$best"
    parse=$(node --max-old-space-size=8192 "$here/json_parse.js" "$file" "$runs" 2>&1 || true)
    # The timing line, or else the error Node stopped with.
    parse=$(grep -m1 -E '^[0-9]' <<<"$parse" || grep -m1 'Error' <<<"$parse" || echo "no output")
    case "$parse" in
    [0-9]*) parse=$(awk '{printf "%.2f (cpu %.2f)", $1 / 1000, $2 / 1000}' <<<"$parse") ;;
    *) parse="fails: ${parse:0:60}" ;;
    esac
    printf '%-28s %10s %8s %8s %10.0f %12.0f   %s\n' "$(basename "$file")" "$mb" "$wall" "$cpu" \
        "$(awk -v m="$mb" -v w="$wall" 'BEGIN { print m / w }')" "$(awk -v r="$rss" 'BEGIN { print r / 1024 }')" "$parse"
done
