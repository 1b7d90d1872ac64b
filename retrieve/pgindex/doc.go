// Package pgindex is the retrieve.Index on PostgreSQL, the counterpart
// of retrieve/sqliteindex: chunks with a tsvector under a GIN index for
// full text (English stemming, the counterpart of FTS5's porter
// tokenizer), text[] metadata under GIN indexes, and embeddings searched
// in memory as SQLite's are (retrieve/memvec, memvec.go) once loaded, and
// until then by pgvector's exact cosine distance when the extension is
// installed (through its HNSW index with WithEfSearch, which also keeps
// the search in the database), by an exact scan in SQL otherwise. Its
// schema is component
// "lore" in hearth_schema (package internal/pgdb).
//
// # Filtering and roles
//
// A search narrows by the reader's role and by retrieve.Filter in the
// WHERE clause of every read, with the meaning of Filter.Match (packs,
// excluded packs, content types, corpora, location, faction, entity as
// id or reference, threads, tags any or all), so a chunk above the role
// is never read into a result. The vector search applies the same
// condition inside its query; with pgvector 0.8 or later the HNSW scan is
// iterative (hnsw.iterative_scan = strict_order), so a narrow filter
// still yields its k nearest rows.
//
// # Full text: BM25 in memory
//
// Both backends search for the same terms (retrieve.Terms) ORed
// together, and both rank them by the same BM25: FTS5's tokens and
// scores (k1 1.2, b 0.75; heading 3, tags 2, text 1) computed by the
// in-memory index of retrieve/bm25 (memtext.go). It is built from
// lore_chunks per generation of the index (lore_meta's counter, bumped
// in every writing transaction, read in the same repeatable-read
// transaction as the rows, with the random stamp each bump records in
// lore_stamps, so a schema restored from an older copy and written to
// again never shows a generation a server holds), so a write by any
// server makes every server's copy stale at its next search. It is built when the index
// opens: at once for up to 5,000 chunks (a fraction of a second), so
// small indexes never rank by anything else; in the background for
// more, and until it is ready the ranking below serves. A search that
// finds it stale brings it up to date from the change log, as the
// vectors (bm25.Index.Apply: the chunks written since, with the document
// count, mean length and term counts kept exact), and builds it whole
// again only when the log cannot say.
//
// # The fallback: how it differs from BM25
//
// PostgreSQL has no BM25, and its ts_rank knows nothing
// of how rare a word is, so a chunk saying "creature" five times would
// outrank one naming the rare word asked about. pgindex therefore scores
// a chunk as the sum over the query's terms of
//
//	idf(term) × ts_rank({text 1/3, tags 2/3, heading 1}, tsv, term, 0)
//
// where idf is BM25's, ln(1 + (N − df + 0.5)/(df + 0.5)), N and df
// counted over the whole index (through the GIN index) once per index
// generation, as FTS5 counts them over the whole table. Past 3,000
// matches only a bounded candidate set is ranked (termstats.go). What
// remains different:
//
//   - Term frequency saturates differently: ts_rank sums an occurrence's
//     weight divided by the square of its position in the list of that
//     term's occurrences (a bound near 1.64 × the weight), where BM25 uses
//     tf·(k1+1)/(tf+k1·…), bounded by k1+1.
//   - There is no length normalisation (ts_rank's normalisation 0), where
//     BM25 divides by the length relative to the corpus average (b 0.75).
//     ts_rank's saturation already keeps a long chunk from winning by
//     repetition, and chunks are cut to a bounded size. On the SRD set,
//     normalisation 0 measured recall@5 0.650 / MRR 0.508; 1 (divide by
//     1 + log length) 0.575 / 0.436; 2 (divide by length) 0.250 / 0.112;
//     8 (by unique words) 0.300 / 0.176; ts_rank_cd with 1 0.525 / 0.408.
//     Those five were all that was tried.
//   - Field weights are ts_rank's label weights, which must lie in [0, 1]:
//     the same 3:2:1 ratio as SQLite's, scaled; a word in heading and text
//     counts in both, as in FTS5.
//   - Stemming is PostgreSQL's English Snowball stemmer and stopword
//     list, not FTS5's Porter: most words stem alike, a few do not
//     (Snowball is Porter's revision), and a term that is an English
//     stopword to PostgreSQL but not to retrieve.Terms is dropped.
//   - tsvector keeps at most 256 positions per word and none past 16,383,
//     which chunks (a few hundred tokens) never reach.
//
// The SRD question set measures the difference (TestSRDRecall in this
// package runs both backends and both rankings on it; BENCHMARKS.md has
// the figures: this fallback scored better on that set than BM25 does).
//
// # Vectors
//
// Vectors are stored as real[] in lore_vectors whatever the server has,
// so a server that gains or loses pgvector needs no re-embedding. With
// pgvector, New creates an HNSW index over vec::vector(dim) for the
// embedder's dimension (dropping one made for another). Searches order by
// cosine distance to the query with the index turned off for the query:
// an exact sequential scan in C, since at 100,000 hashing vectors HNSW
// found at most 91% of the exact top 10 (BENCHMARKS.md). WithEfSearch
// searches through the index instead: approximate, with ef_search at
// least the number of candidates wanted. Without pgvector
// the same query computes every candidate's dot product in SQL: exact,
// and linear in the number of vectors the filter leaves. Those are what
// serve until the in-memory vectors are loaded (in the background at
// open; after a write they catch up from the change log, lore_changes,
// which triggers fill for every writer, and are read whole again only
// when it cannot say what changed) and always with
// WithoutMemVectors or WithEfSearch: in memory, a search estimates every
// readable row from int8 columns of the query's largest dimensions and
// scores the best 256 exactly (WithVectorCandidates), as SQLite does, with
// the same results. VectorSearch says which, for the start-up log.
package pgindex
