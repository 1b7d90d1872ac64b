# Convenience targets; the README's two commands need none of them.
GO ?= go

.PHONY: build release test vet fuzz bench bench-pg bench-all clean

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
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# Run every fuzz target for FUZZTIME (default 30s); scripts/fuzz.sh
# finds them in the source, and says how to run one package's.
FUZZTIME ?= 30s
FUZZMINIMIZE ?= 100x
fuzz:
	FUZZTIME=$(FUZZTIME) FUZZMINIMIZE=$(FUZZMINIMIZE) GO=$(GO) scripts/fuzz.sh

# The headline benchmarks of BENCHMARKS.md, each as its section there
# states it: a turn of the bundled campaign, full-text, vector and hybrid
# search over 100,000 real-text chunks, memory recall over 100,000
# events, 1,000 chats streaming at once, PDF extraction beside pdftotext
# (needs poppler-utils and ../shared/testdata), and the first prompt of
# `hearth play`. The first run builds the 100,000-chunk corpus into
# retrieve/retrievetest/testdata/cache (ignored by git); later runs reuse
# it. bench-pg runs the PostgreSQL halves (HEARTH_TEST_POSTGRES_URL must
# be set: scripts/postgres-test.sh start DIR prints one; its first run
# builds the PostgreSQL corpus, which takes half an hour on 2 cores).
# bench-all runs every benchmark of the packages below.
bench:
	@echo "load: $$(uptime)" | tee bench.txt
	$(GO) test -run='^$$' -bench='^BenchmarkPlayTurn$$' -benchtime=300x -timeout=30m ./app | tee -a bench.txt
	$(GO) test -run='^$$' -bench='^Benchmark(Search|VectorRecall)$$' -benchtime=160x -timeout=60m ./retrieve/sqliteindex | tee -a bench.txt
	$(GO) test -run='^$$' -bench='^BenchmarkRecall100k$$' -benchtime=1000x -timeout=30m ./narrative/sqlitenarrative | tee -a bench.txt
	$(GO) test -run='^$$' -bench='^Benchmark(Streaming1000|StreamingMemory|StreamingBurst|ChatStartCPU|IdleChatMemory)$$' -benchtime=1x -timeout=30m ./server | tee -a bench.txt
	scripts/bench-pdf.sh 8x | tee -a bench.txt
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o bin/hearth-bench ./cmd/hearth
	$(GO) run ./scripts/firstprompt -bin bin/hearth-bench -runs 5 | tee -a bench.txt
	@echo "load: $$(uptime)" | tee -a bench.txt

bench-pg:
	@test -n "$$HEARTH_TEST_POSTGRES_URL" || { echo "set HEARTH_TEST_POSTGRES_URL (scripts/postgres-test.sh start DIR prints one)" >&2; exit 2; }
	@echo "load: $$(uptime)" | tee bench-pg.txt
	$(GO) test -run='^$$' -bench='^BenchmarkSearch100k$$' -benchtime=160x -timeout=60m ./retrieve/pgindex | tee -a bench-pg.txt
	$(GO) test -run='^$$' -bench='^BenchmarkVectorSearch100k$$' -benchtime=5x -timeout=60m ./retrieve/pgindex | tee -a bench-pg.txt
	$(GO) test -run='^$$' -bench='^BenchmarkRecall100k$$' -benchtime=1000x -timeout=30m ./narrative/pgnarrative | tee -a bench-pg.txt
	@echo "load: $$(uptime)" | tee -a bench-pg.txt

bench-all:
	$(GO) test -run='^$$' -bench=. -benchmem -count=6 ./dice ./game ./store/sqlitestore ./contextpack ./agent ./tokens \
		./retrieve/... ./narrative/... ./lorebook ./campaign ./pack ./chunk ./lore ./skill/... | tee bench.txt

clean:
	rm -rf bin bench.txt bench-pg.txt
