// Package bm25 is an in-memory full-text index that ranks exactly as
// SQLite FTS5's bm25() does over a table tokenized with 'porter
// unicode61', but without scoring every match.
//
// Tokens are FTS5's: the unicode61 tokenizer (case folded, simple
// diacritics removed) followed by FTS5's Porter stemmer (Tokenize). A
// query is a list of terms joined by OR, as the lore index builds its
// MATCH expressions; each term is one phrase of FTS5's BM25, so a stem
// repeated in the query counts once per repetition, as in FTS5.
//
// Postings are kept in row order in blocks of 128, delta and varint
// coded, with each block's largest term-frequency factor. Search finds
// the exact top k by MaxScore with block-max bounds: rows that cannot
// reach the k-th score are skipped, most matches are never scored, and
// rows a caller's filter rejects are skipped before scoring, so the top k
// after filtering are exact.
//
// An Index is immutable once built and safe for concurrent searches.
// Apply derives a new one with documents removed, changed and added,
// ranking exactly as a fresh build of the result, for a fraction of a
// build's cost when the changes are few.
package bm25
