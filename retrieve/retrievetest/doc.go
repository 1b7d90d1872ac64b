// Package retrievetest builds the benchmark corpus the retrieval
// benchmarks of both index backends share: 100,000 chunks of real
// tabletop-RPG prose (the bundled SRD 5.1 pack and the text of the PDFs
// in ../shared/testdata/pdf), recombined by a seeded random generator into
// chunks of 150–400 words, so the vocabulary, word frequencies and chunk
// lengths are those of real lore rather than a synthetic language. It also
// gives the queries: the SRD question set and variants of each question.
//
// Everything is deterministic for a given seed and sources. PDF text is
// extracted once with the project's own extractor (ingest/pdf) and kept
// in testdata/cache (ignored by git), as are indexes the benchmarks build
// from the corpus. It is for tests and benchmarks only.
package retrievetest
