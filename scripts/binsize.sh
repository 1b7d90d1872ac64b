#!/usr/bin/env bash
# Where a Hearth binary's bytes go: the symbols' sizes summed by module
# (or by standard-library package), biggest first, with the file size and
# the sections. Usage: scripts/binsize.sh [BINARY] [TOP]
# Without BINARY it builds ./cmd/hearth (unstripped: nm needs the symbol
# table) into a temporary file.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
top=${2:-25}
if [ -z "$bin" ]; then
	bin=$(mktemp)
	trap 'rm -f "$bin"' EXIT
	GOFLAGS=-buildvcs=false go build -o "$bin" ./cmd/hearth
fi
echo "file: $(stat -c %s "$bin") bytes"
readelf -SW "$bin" | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '$1 ~ /^\./ && $2 != "NOBITS" {n = 0; s = tolower($5); for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; if (n > 1e6) printf "  section %-16s %6.1f MB\n", $1, n / 1e6}'
# A symbol's package is its name up to the first dot after the last slash
# (github.com/a/b/c.(*T).M is github.com/a/b/c); a module is the first
# three path elements of a hosted path (github.com/a/b, golang.org/x/net), the first two of
# a vanity path (modernc.org/sqlite), the first element of a standard
# library one (runtime, crypto). Symbols with no package (go:string.*,
# go:func.*, type:*) are "(strings, types, func tables)": embedded files
# are among the strings. Symbols in .bss and .noptrbss take no room in the
# file and are left out (crypto/internal/fips140/drbg.memory is 32 MiB
# of zeroed memory there).
bss=$(readelf -SW "$bin" | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '$1 ~ /^\.(noptr)?bss$/ {print $3, $5}')
go tool nm -size -sort size "$bin" | awk -v top="$top" -v bss="$bss" '
function hex(s,   i, n) { n = 0; s = tolower(s); for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }
BEGIN { nb = split(bss, b, /[ \n]/); for (i = 1; i < nb; i += 2) { lo[i] = hex(b[i]); hi[i] = lo[i] + hex(b[i + 1]) } }
{
	size = $2; addr = hex($1); name = $4
	for (i = 5; i <= NF; i++) name = name " " $i
	for (i = 1; i < nb; i += 2) if (addr >= lo[i] && addr < hi[i]) { skipped += size; next }
	if (name ~ /^(go:|type:|gclocals)/) { mod = "(strings, types, func tables)" }
	else {
		slash = 0
		for (i = length(name); i > 0; i--) if (substr(name, i, 1) == "/") { slash = i; break }
		rest = substr(name, slash + 1)
		dot = index(rest, ".")
		pkg = (dot > 0) ? substr(name, 1, slash + dot - 1) : name
		n = split(pkg, el, "/")
		if (el[1] ~ /^(github\.com|gitlab\.com|golang\.org|cloud\.google\.com)$/ && n >= 3) mod = el[1] "/" el[2] "/" el[3]
		else if (el[1] ~ /\./ && n >= 2) mod = el[1] "/" el[2]
		else if (el[1] ~ /\./) mod = el[1]
		else mod = "std " el[1]
	}
	sum[mod] += size; total += size
}
END {
	printf "symbols in the file: %.1f MB (and %.1f MB of zeroed memory, not in the file)\n", total / 1e6, skipped / 1e6
	for (m in sum) printf "%12d %5.1f%%  %s\n", sum[m], 100 * sum[m] / total, m | "sort -nr | head -" top
}'
