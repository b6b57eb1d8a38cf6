#!/bin/sh
# The data-structure benchmark (README, "Data structures"): `memcity structures` against a
# plain `memcity import` of the same input, alternating, with farm-bench.
# Usage: benches/structures/side_by_side.sh BINARY RUNS INPUT…
set -eu
bin=$1 runs=$2
shift 2
farm-bench -n "$runs" --timeout 1800 --vs "$bin import $* --out /tmp/memcity-bench-import.json" -- "$bin" structures "$@"
