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
	$(GO) test ./dice -run='^$$' -fuzz=FuzzParse -fuzztime=$(FUZZTIME)
	$(GO) test ./content -run='^$$' -fuzz=FuzzParseFrontmatter -fuzztime=$(FUZZTIME)
	$(GO) test ./llm/offline -run='^$$' -fuzz=FuzzInterpret -fuzztime=$(FUZZTIME)

# Benchmarks recorded in BENCHMARKS.md.
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -count=6 ./dice ./game ./store/sqlite | tee bench.txt

clean:
	rm -rf bin bench.txt
