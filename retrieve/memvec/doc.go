// Package memvec holds a lore index's vectors in memory and searches
// them: every vector in one block of float32 rows, with each row's access
// level, and again column by column as int8 for an estimate over a
// query's largest dimensions (approx.go) that picks the few rows to score
// exactly. A Set is immutable: Apply makes a new one that shares the
// rows loaded in full (the base), marks the changed ones dead and keeps
// the vectors stored since in a small extra block, always scored exactly.
//
// The SQLite and PostgreSQL lore indexes share it: each loads a Set from
// its own tables and follows its own writes, and both search by the same
// rules, so they rank vectors alike. A search sees only rows the role may
// read and, when the caller narrows it, only the rows it names (which the
// caller selected with the filter in SQL).
package memvec
