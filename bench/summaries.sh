# bench/summaries.sh — the number summaries and JSON pieces that
# bench/suite.sh and bench/peers.sh share (sourced, bash): medians, ratios
# and geometric means of the values the harnesses print, RSS in MB, JSON
# arrays and strings.  Each prints its result on stdout.

# stdin as one line fit for a JSON string and the table: no quotes,
# backslashes or control characters, at most $1 bytes.
clean() {
    head -c "$1" | tr '\n\t' '| ' | tr -d '"\\\000-\037' | sed 's/[| ]*$//'
}

# median of the numbers in the space separated list $1 ("null" when empty),
# with $2 decimals.
median() {
    awk -v list="$1" -v d="${2:-3}" 'BEGIN {
        n = split(list, v, " ")
        if (n == 0) { print "null"; exit }
        for (i = 2; i <= n; i++) {  # insertion sort: the lists are short
            x = v[i] + 0
            for (j = i - 1; j >= 1 && v[j] + 0 > x; j--) v[j + 1] = v[j]
            v[j + 1] = x
        }
        m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        printf "%.*f\n", d, m
    }'
}

# ratio A B: A / B with 3 decimals ("null" unless both are positive numbers).
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && a > 0 && b > 0) printf "%.3f\n", a / b
        else print "null"
    }'
}

# geometric mean of the numbers on stdin, 3 decimals, and their count
# ("null 0" when none).
geomean() {
    awk '$1 ~ /^[0-9.]+$/ && $1 > 0 { s += log($1); n++ }
        END { if (n) printf "%.3f %d\n", exp(s / n), n; else print "null 0" }'
}

# the largest KB value of the space separated list $1, in MB with 1 decimal
# ("-" when there is none).
max_mb() {
    awk -v list="$1" 'BEGIN {
        n = split(list, v, " "); m = -1
        for (i = 1; i <= n; i++) if (v[i] ~ /^[0-9]+$/ && v[i] + 0 > m) m = v[i] + 0
        if (m < 0) print "-"; else printf "%.1f\n", m / 1024
    }'
}

# a space separated list as a JSON array, as is
json_array() {
    awk -v list="$1" 'BEGIN {
        n = split(list, v, " "); s = "["
        for (i = 1; i <= n; i++) s = s (i > 1 ? ", " : "") v[i]
        print s "]"
    }'
}

# a JSON string's contents: no quotes, backslashes or control characters
jstr() { tr -d '\042\134\000-\037' <<<"$1"; }
