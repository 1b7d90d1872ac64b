#!/usr/bin/env bash
# Compare Hearth's PDF extraction with poppler's pdftotext on the test
# PDFs, side by side in one run: pages per CPU-second, pages per second of
# wall time, and how many words agree. Usage: scripts/bench-pdf.sh [benchtime]
# The PDFs are in ../shared/testdata/pdf beside the repository, or in
# $HEARTH_SHARED_TESTDATA/pdf.
set -euo pipefail
cd "$(dirname "$0")/.."
export HEARTH_SHARED_TESTDATA="${HEARTH_SHARED_TESTDATA:-$(cd .. && pwd)/shared/testdata}"
dir=$HEARTH_SHARED_TESTDATA/pdf
files=(mdsrd5.pdf Halberds-and-Helmets-Ref-Guide.pdf minimal-opend6-srd.pdf)
for f in "${files[@]}"; do
	[ -f "$dir/$f" ] || { echo "missing $dir/$f (set HEARTH_SHARED_TESTDATA)" >&2; exit 1; }
done
if ! command -v pdftotext >/dev/null; then
	echo "pdftotext is missing: apt-get install poppler-utils" >&2
	exit 1
fi

echo "load: $(uptime)"
echo "pdftotext (reading order mode, text to /dev/null), 3 runs each, the fastest:"
for f in "${files[@]}"; do
	pages=$(pdfinfo "$dir/$f" | awk '/^Pages:/ {print $2}')
	best=""
	for _ in 1 2 3; do
		TIMEFORMAT='%R %U %S'
		t=$({ time pdftotext "$dir/$f" /dev/null; } 2>&1)
		best=$(printf '%s\n%s\n' "$best" "$t" | awk 'NF == 3 {cpu = $2 + $3; if (min == "" || cpu < min) {min = cpu; line = $0}} END {print line}')
	done
	awk -v f="$f" -v p="$pages" -v t="$best" 'BEGIN {split(t, a, " "); printf "  %-36s %4d pages  %7.1f pages/cpu-s  %7.1f pages/s\n", f, p, p/(a[2]+a[3]), p/a[1]}'
done

bin=$(mktemp -d)/pdf.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
GOFLAGS="${GOFLAGS:--buildvcs=false}" go test -c -o "$bin" ./ingest/pdf
cd ingest/pdf
echo "hearth ingest/pdf (BenchmarkExtract: text, outline and images; BenchmarkExtractText: no images; benchtime ${1:-8x}, one process, $(nproc) cores):"
"$bin" -test.run='^$' -test.bench='^BenchmarkExtract(Text)?$' -test.benchtime="${1:-8x}" |
	awk '/^BenchmarkExtract(Text)?\// {
		name = $1; kind = "with images"
		if (name ~ /^BenchmarkExtractText\//) kind = "text only"
		sub(/^BenchmarkExtract(Text)?\//, "", name); sub(/-[0-9]+$/, "", name)
		for (i = 1; i < NF; i++) { if ($(i+1) == "pages/s") w = $i; if ($(i+1) == "pages/cpu-s") c = $i }
		printf "  %-36s %-11s %7.1f pages/cpu-s  %7.1f pages/s\n", name, kind, c, w }'
echo "word agreement with pdftotext:"
"$bin" -test.run='^TestAgreementWithPdftotext$' -test.v |
	awk '/^=== RUN.*\// {name = $3; sub(/.*\//, "", name)} /word agreement/ {sub(/.*pdftotext: /, ""); printf "  %-36s %s\n", name, $0}'
