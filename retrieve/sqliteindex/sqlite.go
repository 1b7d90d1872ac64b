package sqliteindex

import (
	"context"
	"database/sql"
	stdembed "embed"
	"fmt"
	"log/slog"
	"sync"

	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
	"github.com/hearth-rpg/hearth/internal/sqlitefile"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/memvec"
)

//go:embed migrations/*.sql
var migrations stdembed.FS

// Migrations are the lore index's numbered files, for a handle shared
// with the other stores (see package database).
var Migrations = sqlitedb.Migrations{Component: "lore", FS: migrations, Dir: "migrations",
	Legacy: "lore_schema", What: "the lore index"}

// Index is a retrieve.Index in a SQLite file. It is safe for concurrent
// use.
type Index struct {
	h    *sqlitedb.DB
	own  bool // Close closes h: it was opened by Open
	path string
	w    *sql.DB // one connection: all writes
	r    *sql.DB // a pool for reads
	emb  embedding.Embedder
	log  *slog.Logger

	stmts                    stmtCache // reads
	results                  resultCache
	tstats                   termStats
	insChunk, insKey, insVec *sql.Stmt // writes

	vmu  sync.Mutex   // held while the vector cache catches up
	vecs *vectorCache // nil until a vector search needs it

	cands   int       // re-ranked candidates a vector search; 0: exact
	scratch sync.Pool // *approx

	mem memText // full text in memory (memtext.go)
}

var _ retrieve.Index = (*Index)(nil)

type options struct {
	emb      embedding.Embedder
	cands    int
	candsSet bool
	log      *slog.Logger
}

// Option configures Open.
type Option func(*options)

// WithEmbedder turns on vector search with e. Chunks are embedded when
// upserted; on Open, chunks with no vector in e's space (all of them, the
// first time, or after the embedder changed) are embedded before Open
// returns.
func WithEmbedder(e embedding.Embedder) Option {
	return func(o *options) { o.emb = e }
}

// WithLogger reports what the index does in the background or decides
// on its own: the in-memory full text not built or not caught up (FTS5
// serves meanwhile), a change log that does not continue what the
// process holds. nil discards.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.log = l }
}

// DefaultVectorCandidates is how many rows a vector search re-ranks
// exactly unless WithVectorCandidates says otherwise.
const DefaultVectorCandidates = memvec.DefaultCandidates

// WithVectorCandidates sets how many chunks a vector search scores
// exactly, picked first by an estimate from the query's largest dimensions:
// fewer is faster, more misses fewer of the true best. 0 scores every
// chunk exactly. Without this option, DefaultVectorCandidates applies.
func WithVectorCandidates(c int) Option {
	return func(o *options) { o.cands, o.candsSet = max(c, 0), true }
}

// New serves the lore index from the shared handle h, whose migrations
// must include Migrations. With an embedder, chunks with no vector in its
// space are embedded before New returns. Close does not close h.
func New(ctx context.Context, h *sqlitedb.DB, opts ...Option) (*Index, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if o.emb != nil && o.emb.Dim() <= 0 {
		return nil, fmt.Errorf("open lore index %s: embedder %s has dimension %d", h.Path(), o.emb.Name(), o.emb.Dim())
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	ix := &Index{h: h, path: h.Path(), w: h.Writer(), r: h.Reader(), emb: o.emb, log: o.log, cands: DefaultVectorCandidates}
	if o.candsSet {
		ix.cands = o.cands
	}
	ix.stmts.db = ix.r
	ix.mem.start()
	if err := ix.prepare(ctx); err != nil {
		ix.Close()
		return nil, err
	}
	if err := ix.syncEmbeddings(ctx); err != nil {
		ix.Close()
		return nil, err
	}
	// Start building the in-memory full text; FTS5 serves until it is.
	if gen, err := ix.generation(ctx); err == nil {
		ix.memSnapshot(ctx, gen)
	}
	return ix, nil
}

// Open opens (creating if needed) the index in the SQLite file at path
// with only its own tables brought up to date, for tests and tools.
// Hearth itself opens every store at once (package database). The index
// can be rebuilt from its sources, so it is written with synchronous
// NORMAL.
func Open(ctx context.Context, path string, opts ...Option) (*Index, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if o.emb != nil && o.emb.Dim() <= 0 {
		return nil, fmt.Errorf("open lore index %s: embedder %s has dimension %d", path, o.emb.Name(), o.emb.Dim())
	}
	h, err := sqlitedb.Open(ctx, path, sqlitedb.Options{Migrations: []sqlitedb.Migrations{Migrations}, SynchronousNormal: true})
	if err != nil {
		return nil, fmt.Errorf("open lore index: %w", err)
	}
	ix, err := New(ctx, h, opts...)
	if err != nil {
		h.Close()
		return nil, err
	}
	ix.own = true
	return ix, nil
}

// Path returns the database file's path.
func (ix *Index) Path() string { return ix.path }

// Close releases the index's statements, and closes the database when
// Open opened it.
func (ix *Index) Close() error {
	ix.mem.close()
	ix.vmu.Lock()
	ix.vecs = nil
	ix.vmu.Unlock()
	ix.stmts.close()
	for _, s := range []*sql.Stmt{ix.insChunk, ix.insKey, ix.insVec} {
		if s != nil {
			s.Close()
		}
	}
	if ix.own {
		return ix.h.Close()
	}
	return nil
}

// explain turns SQLite's errors into ones that say what to do.
func (ix *Index) explain(doing string, err error) error {
	return sqlitefile.Explain(doing, ix.path, err)
}

// stmtCache holds prepared read statements by SQL text. Search builds its
// SQL from which filter fields are set, so there are at most a few hundred
// distinct texts; past maxStmts, statements are not kept.
type stmtCache struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

const maxStmts = 512

// query runs a read statement, prepared once and kept for the next time.
func (c *stmtCache) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	c.mu.Lock()
	s, ok := c.m[query]
	if !ok && len(c.m) < maxStmts {
		var err error
		if s, err = c.db.PrepareContext(ctx, query); err != nil {
			c.mu.Unlock()
			return nil, err
		}
		if c.m == nil {
			c.m = map[string]*sql.Stmt{}
		}
		c.m[query], ok = s, true
	}
	c.mu.Unlock()
	if !ok {
		// Too many distinct statements: run this one unprepared.
		return c.db.QueryContext(ctx, query, args...)
	}
	return s.QueryContext(ctx, args...)
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.m {
		s.Close()
	}
	c.m = nil
}
