#!/usr/bin/env bash
# The data-structure benchmark (README, "Data structures"): `memcity structures INPUT…` against a
# plain `memcity import INPUT… --out FILE` of the same input, each with its default settings,
# in turns (import, structures, import, …) after one warm-up run of each, so that both see the
# same machine and the same page cache. Per command: wall, user + system CPU and peak RSS (of
# /usr/bin/time), as minimum, median and maximum; then the ratio structures / import of each
# pair's wall and CPU, likewise.
# Usage: benches/structures/side_by_side.sh MEMCITY INPUT… (RUNS=5 by default; MEMCITY is a
# release binary, e.g. target/release/memcity after `cargo build --release --no-default-features`).
set -euo pipefail
memcity=$1
shift
runs=${RUNS:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One run of the command named $1 (import or structures): "wall cpu peak_kib" appended to $out/$1.
run() {
    local what=$1
    case "$what" in
    import) set -- "$memcity" import "${inputs[@]}" --out "$out/history.json" ;;
    structures) set -- "$memcity" structures "${inputs[@]}" ;;
    esac
    /usr/bin/time -f "%e %U %S %M" -o "$out/time" "$@" >"$out/stdout" 2>"$out/stderr" || {
        echo "$what failed:" >&2
        cat "$out/stderr" >&2
        exit 1
    }
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$out/time" >>"$out/$what"
}

inputs=("$@")
run import
run structures
: >"$out/import"
: >"$out/structures"
for _ in $(seq "$runs"); do
    run import
    run structures
done

# min, median and max of column $2 of file $1, each scaled by $3.
stats() {
    cut -d' ' -f"$2" "$1" | sort -g | awk -v k="$3" '{ v[NR] = $1 * k }
        END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%10.2f %10.2f %10.2f", v[1], m, v[NR] }'
}

printf '%d runs each of\n  A: %s structures %s\n  B: %s import %s --out FILE\n' \
    "$runs" "$memcity" "$*" "$memcity" "$*"
printf '%-22s %10s %10s %10s\n' "" min median max
for what in structures import; do
    printf '%-22s %s\n' "$what wall s" "$(stats "$out/$what" 1 1)"
    printf '%-22s %s\n' "$what cpu s" "$(stats "$out/$what" 2 1)"
    printf '%-22s %s\n' "$what peak MiB" "$(stats "$out/$what" 3 0.0009765625)"
done
paste -d' ' "$out/structures" "$out/import" | awk '{ print $1 / $4, $2 / $5 }' >"$out/ratio"
printf '%-22s %s\n' "ratio wall A/B" "$(stats "$out/ratio" 1 1)"
printf '%-22s %s\n' "ratio cpu A/B" "$(stats "$out/ratio" 2 1)"
