#!/usr/bin/env bash
# A memcity command against a plain `memcity import INPUT… --out FILE` of the same input (README,
# "Data structures", "Ownership"), each with its default settings, in turns (import, command,
# import, …) after one warm-up run of each, so that both see the same machine and the same page
# cache. Per command: wall, user + system CPU and peak RSS (of /usr/bin/time), as minimum,
# median and maximum; then the ratio command / import of each pair's wall and CPU, likewise.
# Usage: benches/side_by_side.sh MEMCITY COMMAND [ARG…] -- INPUT…
#   runs `MEMCITY COMMAND INPUT… ARG…`, where @OUT@ in an ARG stands for a scratch folder, e.g.
#   benches/side_by_side.sh target/release/memcity ownership --out @OUT@/o.json -- tomcat/*.hprof
# OK_EXIT: exit codes besides 0 that the command may end with, e.g. OK_EXIT=1 for `memcity
# check`, which exits 1 when it finds a leak. RUNS=5 by default; MEMCITY is a release binary, e.g. target/release/memcity after
# `cargo build --release --no-default-features`.
set -euo pipefail
memcity=$1
shift
command=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    command+=("$1")
    shift
done
[ $# -gt 1 ] || { echo "usage: $0 MEMCITY COMMAND [ARG…] -- INPUT…" >&2; exit 2; }
shift
inputs=("$@")
runs=${RUNS:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
name=${command[0]}
extra=()
for arg in "${command[@]:1}"; do
    extra+=("${arg//@OUT@/$out}")
done

# One run of A (the command) or B (the import): "wall cpu peak_kib" appended to $out/$1.
run() {
    local what=$1
    case "$what" in
    A) set -- "$memcity" "$name" "${inputs[@]}" "${extra[@]}" ;;
    B) set -- "$memcity" import "${inputs[@]}" --out "$out/history.json" ;;
    esac
    local ok=
    [ "$what" = B ] || ok=${OK_EXIT:-}
    timed "$what" "$ok" "$@"
}

# shellcheck source=benches/in_turns.sh
source "$(dirname "${BASH_SOURCE[0]}")/in_turns.sh"
in_turns B A

printf '%d runs each of\n  A: %s %s %s %s\n  B: %s import %s --out FILE\n' \
    "$runs" "$memcity" "$name" "${inputs[*]}" "${command[*]:1}" "$memcity" "${inputs[*]}"
summary "$name" import
