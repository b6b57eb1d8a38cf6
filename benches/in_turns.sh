# Sourced by the side-by-side benches, which define `run A` and `run B` (each timing one run with
# `timed`) and set $out and $runs.

# One run of command "$3…" for A or B ($1): "wall cpu peak_kib" (of /usr/bin/time) appended to
# $out/$1. Besides 0 it may end with the exit codes in $2 (space-separated); any other stops the
# bench with the command's errors.
timed() {
    local what=$1 ok=$2 code=0
    shift 2
    /usr/bin/time -f "%e %U %S %M" -o "$out/time" "$@" >"$out/stdout" 2>"$out/stderr" || code=$?
    [ "$code" = 0 ] || [[ " $ok " == *" $code "* ]] || {
        echo "$*: failed:" >&2
        cat "$out/stderr" >&2
        exit 1
    }
    # The last line: time writes "Command exited with non-zero status N" before it.
    tail -n 1 "$out/time" | awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' >>"$out/$what"
}

# One warm-up run of each, not counted, then $runs runs of each in turns, $1 first.
in_turns() {
    run "$1"
    run "$2"
    : >"$out/A"
    : >"$out/B"
    for _ in $(seq "$runs"); do
        run "$1"
        run "$2"
    done
}

# min, median and max of column $2 of file $1 (one run a line, columns split by spaces), each
# scaled by $3, in three columns of 10.
stats() {
    cut -d' ' -f"$2" "$1" | sort -g | awk -v k="$3" '{ v[NR] = $1 * k }
        END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%10.2f %10.2f %10.2f", v[1], m, v[NR] }'
}

# Wall, CPU and peak RSS of A (named $1) and B (named $2), then the ratios A/B of each pair's
# wall and CPU.
summary() {
    printf '%-22s %10s %10s %10s\n' "" min median max
    local what label
    for what in A B; do
        label=$([ "$what" = A ] && echo "$1" || echo "$2")
        printf '%-22s %s\n' "$label wall s" "$(stats "$out/$what" 1 1)"
        printf '%-22s %s\n' "$label cpu s" "$(stats "$out/$what" 2 1)"
        printf '%-22s %s\n' "$label peak MiB" "$(stats "$out/$what" 3 0.0009765625)"
    done
    paste -d' ' "$out/A" "$out/B" | awk '{ print $1 / $4, $2 / $5 }' >"$out/ratio"
    printf '%-22s %s\n' "ratio wall A/B" "$(stats "$out/ratio" 1 1)"
    printf '%-22s %s\n' "ratio cpu A/B" "$(stats "$out/ratio" 2 1)"
}
