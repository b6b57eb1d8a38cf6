# Sourced by the side-by-side benches, which define `run A` and `run B` (each appending "wall cpu
# peak_kib" of one run to $out/A or $out/B) and set $out and $runs.

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
