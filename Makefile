# Convenience targets; the README's two commands need none of them.
GO ?= go

.PHONY: build release test vet fuzz bench bench-all clean

build:
	$(GO) build -o bin/hearth ./cmd/hearth

# The binary to ship: without the symbol table and DWARF (-s -w: 105 MB
# becomes 77 MB; stack traces keep their function names and lines) and
# without the build machine's paths.
release:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o bin/hearth ./cmd/hearth

test:
	$(GO) test ./...

vet:
	gofmt -l $$(git ls-files '*.go')
	$(GO) vet ./...

# Run every fuzz target for FUZZTIME (default 30s); scripts/fuzz.sh
# finds them in the source, and says how to run one package's.
FUZZTIME ?= 30s
FUZZMINIMIZE ?= 100x
fuzz:
	FUZZTIME=$(FUZZTIME) FUZZMINIMIZE=$(FUZZMINIMIZE) GO=$(GO) scripts/fuzz.sh

# The headline benchmarks of BENCHMARKS.md: a turn, retrieval over 100,000
# chunks (SQLite and PostgreSQL in one run), memory recall over 100,000
# events, 1,000 concurrent chat streams. The first run builds the
# retrieval indexes into retrieve/retrievetest/testdata/cache (SQLite
# 9 minutes, PostgreSQL 33 on a loaded 2-core machine); later runs reuse
# them. Full text over 100,000 chunks costs up to a second of CPU a
# search, so the whole set takes well over 10 minutes on 2 cores. The
# PostgreSQL halves run when HEARTH_TEST_POSTGRES_URL is set
# (scripts/postgres-test.sh start DIR prints one). PDF extraction is
# scripts/bench-pdf.sh. bench-all runs every benchmark of the packages
# below.
bench:
	@echo "load: $$(uptime)" | tee bench.txt
	$(GO) test -run='^$$' -bench='^BenchmarkPlayTurn$$' -benchtime=300x -timeout=30m ./app | tee -a bench.txt
	$(GO) test -run='^$$' -bench='^BenchmarkSearch100k$$' -benchtime=160x -timeout=60m ./retrieve/pgindex | tee -a bench.txt
	$(GO) test -run='^$$' -bench='^BenchmarkVectorSearch100k$$' -benchtime=5x -timeout=60m ./retrieve/pgindex | tee -a bench.txt
	$(GO) test -run='^$$' -bench='^Benchmark(VectorScan|FullTextCommonWords)$$' -benchtime=160x -timeout=60m ./retrieve/sqliteindex | tee -a bench.txt
	$(GO) test -run='^$$' -bench='^BenchmarkRecall100k$$' -benchtime=2000x -timeout=30m ./narrative/sqlitenarrative ./narrative/pgnarrative | tee -a bench.txt
	$(GO) test -run='^$$' -bench='^Benchmark(Streaming1000|StreamingBurst|ChatStartCPU|IdleChatMemory)$$' -benchtime=1x -timeout=30m ./server | tee -a bench.txt
	@echo "load: $$(uptime)" | tee -a bench.txt

bench-all:
	$(GO) test -run='^$$' -bench=. -benchmem -count=6 ./dice ./game ./store/sqlitestore ./contextpack ./agent ./tokens \
		./retrieve/... ./narrative/... ./lorebook ./campaign ./pack ./chunk ./lore ./skill/... | tee bench.txt

clean:
	rm -rf bin bench.txt
