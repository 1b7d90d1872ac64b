#!/usr/bin/env bash
# Where a Hearth binary's bytes go: the sections, the read-only data's
# parts, and the symbols' sizes summed by module (or by standard-library
# package), biggest first. Usage: scripts/binsize.sh [BINARY] [TOP]
# Without BINARY it builds ./cmd/hearth (unstripped: nm needs the symbol
# table) into a temporary file.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
top=${2:-25}
if [ -z "$bin" ]; then
	bin=$(mktemp)
	trap 'rm -f "$bin"' EXIT
	GOFLAGS=-buildvcs=false CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/hearth
fi
echo "file: $(stat -c %s "$bin") bytes"
sections=$(readelf -SW "$bin" | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '$1 ~ /^\./ {print $1, $2, $3, $5}')
echo "$sections" | awk 'function hex(s,i,n){n=0;s=tolower(s);for(i=1;i<=length(s);i++)n=n*16+index("0123456789abcdef",substr(s,i,1))-1;return n}
	$2 != "NOBITS" && hex($4) > 1e6 {printf "  section %-16s %6.1f MB\n", $1, hex($4) / 1e6}'
# .rodata holds the type descriptors (from type:* to go:string.*), then
# the string constants (to go:funcdesc; embedded files are among them),
# then the rest. Symbols in .bss and .noptrbss take no room in the file
# and are left out below (crypto/internal/fips140/drbg.memory is 32 MiB of
# zeroed memory there).
nm=$(mktemp)
trap 'rm -f "$nm" ${bin_tmp:-}' EXIT
go tool nm -size -sort address "$bin" >"$nm"
awk 'function hex(s,i,n){n=0;s=tolower(s);for(i=1;i<=length(s);i++)n=n*16+index("0123456789abcdef",substr(s,i,1))-1;return n}
	$4 == "type:*" {t = hex($1)} $4 == "go:string.*" {s = hex($1)} $4 == "go:funcdesc" {f = hex($1)} $4 == "runtime.erodata" {e = hex($1)}
	END {if (t && s && f) printf "  .rodata: type descriptors %.1f MB, strings %.1f MB, the rest %.1f MB\n", (s - t) / 1e6, (f - s) / 1e6, (e - f) / 1e6}' "$nm"
# A symbol's package is its name up to the first dot after the last slash
# (github.com/a/b/c.(*T).M is github.com/a/b/c); a module is the first
# three path elements of a hosted path (github.com/a/b, golang.org/x/net),
# the first two of a vanity path (modernc.org/sqlite), the first element
# of a standard library one (runtime, crypto). Symbols with no package
# (go:string.*, go:func.*, type:*) are "(strings, types, func tables)".
# Code is .text; a stripped binary also carries the function tables of
# .gopclntab (stack traces and the garbage collector need them), which
# grow with the code: "stripped" estimates a module's share of a -s -w
# binary as code × (1 + .gopclntab / .text) + data.
bss=$(echo "$sections" | awk '$1 ~ /^\.(noptr)?bss$/ {print $3, $4}')
ratio=$(echo "$sections" | awk 'function hex(s,i,n){n=0;s=tolower(s);for(i=1;i<=length(s);i++)n=n*16+index("0123456789abcdef",substr(s,i,1))-1;return n}
	$1 == ".text" {t = hex($4)} $1 == ".gopclntab" {p = hex($4)} END {printf "%.3f", p / t}')
awk -v top="$top" -v bss="$bss" -v ratio="$ratio" '
function hex(s,   i, n) { n = 0; s = tolower(s); for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }
BEGIN { nb = split(bss, b, /[ \n]/); for (i = 1; i < nb; i += 2) { lo[i] = hex(b[i]); hi[i] = lo[i] + hex(b[i + 1]) } }
{
	size = $2; addr = hex($1); kind = $3; name = $4
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
	if (kind == "T" || kind == "t") code[mod] += size; else data[mod] += size
	sum[mod] += size; total += size
}
END {
	printf "symbols in the file: %.1f MB (and %.1f MB of zeroed memory, not in the file); .gopclntab/.text = %s\n", total / 1e6, skipped / 1e6, ratio
	printf "%12s %12s %12s  %s\n", "stripped", "code", "data", "module" | "cat"
	close("cat")
	for (m in sum) printf "%12d %12d %12d  %s\n", code[m] * (1 + ratio) + data[m], code[m], data[m], m | "sort -nr | head -" top
}' "$nm"
