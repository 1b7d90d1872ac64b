// Package memtext holds what a lore index's in-memory full text needs
// beside its retrieve/bm25 index: each document's access level and the
// values a retrieve.Filter tests one per document (pack, content type,
// corpus, location, faction), interned, so a search can test a candidate
// in Go before it is scored. The set-valued parts of a filter (entities,
// threads, tags) stay with the database, which names the few rows they
// admit; Keyed says whether a filter has such a part.
//
// The SQLite and PostgreSQL lore indexes share it, so both filter their
// in-memory full text by the same rules.
package memtext
