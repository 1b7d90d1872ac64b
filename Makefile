# Convenience targets; the README's two commands need none of them.
GO ?= go

.PHONY: build test vet fuzz bench clean

build:
	$(GO) build -o bin/hearth ./cmd/hearth

test:
	$(GO) test ./...

vet:
	gofmt -l $$(git ls-files '*.go')
	$(GO) vet ./...

# Run each fuzz target for FUZZTIME (default 30s); seed corpora live in
# the packages' testdata/fuzz directories and run in every plain `go test`.
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./auth -run='^$$' -fuzz='^FuzzParseHash$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./auth -run='^$$' -fuzz='^FuzzParseKey$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./chunk -run='^$$' -fuzz='^FuzzMarkdown$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./config -run='^$$' -fuzz='^FuzzLoad$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./content -run='^$$' -fuzz='^FuzzPackFile$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./content -run='^$$' -fuzz='^FuzzParseBeat$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./content -run='^$$' -fuzz='^FuzzParseFrontmatter$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./content -run='^$$' -fuzz='^FuzzParseManifest$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./content -run='^$$' -fuzz='^FuzzParseStat$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./content -run='^$$' -fuzz='^FuzzReadArchive$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./dice -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./embed -run='^$$' -fuzz='^FuzzDecode$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./embed -run='^$$' -fuzz='^FuzzHashing$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./i18n -run='^$$' -fuzz='^FuzzFor$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./i18n -run='^$$' -fuzz='^FuzzForEnv$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./ingest -run='^$$' -fuzz='^FuzzDetect$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./ingest/epub -run='^$$' -fuzz='^FuzzEPUB$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./ingest/epub -run='^$$' -fuzz='^FuzzWebPSize$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./ingest/library -run='^$$' -fuzz='^FuzzSearchImages$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./ingest/markdown -run='^$$' -fuzz='^FuzzMarkdown$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./ingest/pdf -run='^$$' -fuzz='^FuzzExtract$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./internal/api -run='^$$' -fuzz='^FuzzDecode$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./llm/offline -run='^$$' -fuzz='^FuzzInterpret$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./llm/structured -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./lorebook -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./mcp -run='^$$' -fuzz='^FuzzArguments$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./narrative -run='^$$' -fuzz='^FuzzParseCondition$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./narrative -run='^$$' -fuzz='^FuzzParsePriority$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./narrative -run='^$$' -fuzz='^FuzzParseRange$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./narrative -run='^$$' -fuzz='^FuzzParseSignificance$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./narrative/sqlite -run='^$$' -fuzz='^FuzzDecodeVector$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./retrieve/sqlite -run='^$$' -fuzz='^FuzzMatchQuery$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./rules/traveller -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./rules/traveller -run='^$$' -fuzz='^FuzzReadWorlds$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./server -run='^$$' -fuzz='^FuzzConfineAsset$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./server -run='^$$' -fuzz='^FuzzUploadMeta$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./server/gameapi -run='^$$' -fuzz='^FuzzDecodeCommand$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./skill -run='^$$' -fuzz='^FuzzParseManifest$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./skill/pattern -run='^$$' -fuzz='^FuzzPlan$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./skill/plan -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./skill/protocol -run='^$$' -fuzz='^FuzzDecode$$' -fuzztime=$(FUZZTIME)

# Benchmarks recorded in BENCHMARKS.md.
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -count=6 ./dice ./game ./store/sqlite ./memory ./agent ./tokens \
		./retrieve/... ./narrative/... ./lorebook ./content ./chunk ./lore ./skill/... | tee bench.txt

clean:
	rm -rf bin bench.txt
