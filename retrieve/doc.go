// Package retrieve finds the lore a scene needs: hybrid search over
// chunks that narrows by metadata, ranks by full text (BM25) and by vector
// similarity, fuses the rankings, and fits the best passages into a token
// budget, for one reader's access level.
//
// This package holds the domain: the Query a caller asks (free text or
// structured scene Signals, a Filter, the reader's Role, a Budget), the
// Result it gets back with a Trace per passage explaining why it ranked
// where it did or why it was cut, and the pure steps every backend shares
// (BuildQuery, Fuse, Fit, Explain). The Index interface is implemented by
// retrieve/sqliteindex; every implementation passes the conformance suite
// in retrieve/indextest.
//
// A backend must enforce the reader's role where it reads: a chunk the
// role may not see is never read into a Result, not even into the
// explained list of cut passages. This package runs no SQL and calls no
// model; it must not import a backend.
package retrieve
