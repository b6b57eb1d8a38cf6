# Sourced by the side-by-side benches: min, median and max of column $2 of file $1 (one run a
# line, columns split by spaces), each scaled by $3, in three columns of 10.
stats() {
    cut -d' ' -f"$2" "$1" | sort -g | awk -v k="$3" '{ v[NR] = $1 * k }
        END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%10.2f %10.2f %10.2f", v[1], m, v[NR] }'
}
