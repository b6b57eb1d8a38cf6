#!/usr/bin/env bash
# The data-structure benchmark (README, "Data structures"): `memcity structures INPUT…` against
# a plain `memcity import INPUT… --out FILE`, in turns, with benches/side_by_side.sh.
# Usage: benches/structures/side_by_side.sh MEMCITY INPUT… (RUNS=5 by default).
set -euo pipefail
memcity=$1
shift
exec "$(dirname "$0")/../side_by_side.sh" "$memcity" structures -- "$@"
