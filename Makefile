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

# Run each fuzz target for FUZZTIME (default 30s); seed corpora live in
# the packages' testdata/fuzz directories and run in every plain `go test`.
# FUZZMINIMIZE bounds the minimizing of each new input: with Go's default
# (60 s each) a target whose coverage varies a little from run to run
# spends most of its time minimizing, not fuzzing. Raise it to shrink a
# crasher before reading it.
FUZZTIME ?= 30s
FUZZMINIMIZE ?= 100x
fuzz:
	$(GO) test ./auth -run='^$$' -fuzz='^FuzzParseHash$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./auth -run='^$$' -fuzz='^FuzzParseKey$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./chunk -run='^$$' -fuzz='^FuzzMarkdown$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./config -run='^$$' -fuzz='^FuzzLoad$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./campaign -run='^$$' -fuzz='^FuzzPackFile$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./campaign -run='^$$' -fuzz='^FuzzParseBeat$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./pack -run='^$$' -fuzz='^FuzzParseFrontmatter$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./pack -run='^$$' -fuzz='^FuzzParseManifest$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./campaign -run='^$$' -fuzz='^FuzzParseStat$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./campaign -run='^$$' -fuzz='^FuzzReadArchive$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./dice -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./spell -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./embedding -run='^$$' -fuzz='^FuzzDecode$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./tokens -run='^$$' -fuzz='^FuzzEncode$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./embedding -run='^$$' -fuzz='^FuzzHashing$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./i18n -run='^$$' -fuzz='^FuzzFor$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./i18n -run='^$$' -fuzz='^FuzzForEnv$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./ingest -run='^$$' -fuzz='^FuzzDetect$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./ingest/epub -run='^$$' -fuzz='^FuzzEPUB$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./ingest/epub -run='^$$' -fuzz='^FuzzWebPSize$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./ingest/library -run='^$$' -fuzz='^FuzzSearchImages$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./ingest/markdown -run='^$$' -fuzz='^FuzzMarkdown$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./ingest/pdf -run='^$$' -fuzz='^FuzzExtract$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./internal/api -run='^$$' -fuzz='^FuzzDecode$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./llm/offline -run='^$$' -fuzz='^FuzzInterpret$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./llm/structured -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./lorebook -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./mcp -run='^$$' -fuzz='^FuzzArguments$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./narrative -run='^$$' -fuzz='^FuzzParseCondition$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./narrative -run='^$$' -fuzz='^FuzzParsePriority$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./narrative -run='^$$' -fuzz='^FuzzParseRange$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./narrative -run='^$$' -fuzz='^FuzzParseSignificance$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./narrative/sqlitenarrative -run='^$$' -fuzz='^FuzzDecodeVector$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./retrieve/sqliteindex -run='^$$' -fuzz='^FuzzMatchQuery$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./rules/traveller -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./rules/traveller -run='^$$' -fuzz='^FuzzReadWorlds$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./server -run='^$$' -fuzz='^FuzzConfineAsset$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./server -run='^$$' -fuzz='^FuzzUploadMeta$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./server/gameapi -run='^$$' -fuzz='^FuzzDecodeCommand$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./skill -run='^$$' -fuzz='^FuzzParseManifest$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./skill/pattern -run='^$$' -fuzz='^FuzzPlan$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./skill/plan -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)
	$(GO) test ./skill/protocol -run='^$$' -fuzz='^FuzzDecode$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE)

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
