#!/usr/bin/env bash
# Compare Hearth's PDF extraction speed with poppler's pdftotext on the
# largest test PDF. Usage: scripts/bench-pdf.sh [benchtime]
set -euo pipefail
cd "$(dirname "$0")/.."
pdf=../shared/testdata/pdf/mdsrd5.pdf
[ -f "$pdf" ] || { echo "missing $pdf" >&2; exit 1; }
if ! command -v pdftotext >/dev/null; then
	apt-get update -qq && apt-get install -y -qq poppler-utils >/dev/null
fi
pages=$(pdfinfo "$pdf" | awk '/^Pages:/ {print $2}')
start=$(date +%s.%N)
pdftotext -layout "$pdf" /dev/null
end=$(date +%s.%N)
echo "pdftotext -layout: $(awk -v p="$pages" -v s="$start" -v e="$end" 'BEGIN {printf "%.1f pages/s (%d pages in %.2f s)", p/(e-s), p, e-s}')"
go test -run='^$' -bench=BenchmarkExtract -benchtime="${1:-2x}" ./ingest/pdf |
	awk '/pages\/s/ {for (i = 1; i < NF; i++) if ($(i+1) == "pages/s") print "hearth ingest/pdf: " $i " pages/s"}'
