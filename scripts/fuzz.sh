#!/usr/bin/env bash
# Runs every fuzz target in the module for FUZZTIME each (default 30s).
# The targets are found in the source, so a new one is never left out.
# Seed corpora live in the packages' testdata/fuzz directories and run in
# every plain `go test`. FUZZMINIMIZE bounds the minimizing of each new
# input: with Go's default (60 s each) a target whose coverage varies a
# little from run to run spends most of its time minimizing, not fuzzing.
# Raise it to shrink a crasher before reading it.
#
#   scripts/fuzz.sh            every target
#   scripts/fuzz.sh pdfread    the targets of packages whose path contains "pdfread"
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-30s}
FUZZMINIMIZE=${FUZZMINIMIZE:-100x}
filter=${1:-}
failed=0
while IFS=: read -r file name; do
	pkg=./$(dirname "$file")
	[[ -n $filter && $pkg != *"$filter"* ]] && continue
	echo "== $pkg $name"
	if ! $GO test "$pkg" -run='^$' -fuzz="^${name}\$" -fuzztime="$FUZZTIME" -fuzzminimizetime="$FUZZMINIMIZE"; then
		failed=1
	fi
done < <(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . | sed 's#^\./##; s#:func #:#' | sort)
exit $failed
