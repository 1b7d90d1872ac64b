// Package sqliteindex is the embedded retrieve.Index: chunks, their full-text
// index (FTS5, Porter stemming, BM25) and their embeddings in one SQLite
// file through the pure-Go modernc.org/sqlite driver.
//
// The index lives in the same file as Hearth's other tables, so its
// tables are all named lore_*; its schema is versioned as component
// "lore" in the shared hearth_schema (package internal/sqlitedb). Open,
// for tools and tests, writes with synchronous=NORMAL, since the index can
// be rebuilt from its sources; New shares the data directory's handle.
//
// A search narrows by metadata and by the reader's role in SQL, ranks the
// survivors by BM25 and, when an embedder is configured, by vector
// similarity (retrieve/memvec: the rows whose estimate from a few int8 columns
// is highest, scored exactly; WithVectorCandidates(0) scans every vector
// exactly), fuses the two rankings and fits the result to the query's
// limit and token budget. BM25 is ranked by an in-memory index
// (retrieve/bm25, memtext.go) that gives FTS5's scores exactly but skips
// the rows that cannot reach the top k; it is built in the background
// when the index opens, FTS5 serving meanwhile, and after a change,
// whichever process made it, catches up from a log of changed chunks
// (lore_chunk_log), built whole again only after many. The generation
// stamp and each log entry carry a random part (migrations/0005), so a
// file restored from an older copy and written to again, whose counters
// then count the same as before, is never taken for what a process
// holds. While FTS5
// serves, when a query's rare words decide its top matches, only the
// rows holding them are scored (rarefirst.go): BM25's ranking,
// without scoring every row a common word matches. A chunk above the
// reader's role is never read
// from the database into a result. The package must not decide what a
// role may see (access.Level.CanSee does) or how chunks are made (the
// chunk, campaign and ingest packages do).
//
// The vectors are kept in memory (a retrieve/memvec.Set), loaded in full
// on first use. Triggers
// log every chunk whose vector or access level changes (lore_vector_log),
// so before each scan the cache reads just what changed since it was
// built, whichever process wrote it; after many changes it reloads. The
// vectors loaded in full are also kept column by column as int8 (a
// quarter of their size again) for the estimate; those changed since are
// always scored exactly.
package sqliteindex
