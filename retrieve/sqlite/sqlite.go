package sqlite

import (
	"context"
	"database/sql"
	stdembed "embed"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/hearth-rpg/hearth/internal/sqlitefile"

	"github.com/hearth-rpg/hearth/internal/migrate"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/hearth-rpg/hearth/embed"
	"github.com/hearth-rpg/hearth/retrieve"
)

//go:embed migrations/*.sql
var migrations stdembed.FS

// Index is a retrieve.Index in a SQLite file. It is safe for concurrent
// use.
type Index struct {
	path string
	w    *sql.DB // one connection: all writes
	r    *sql.DB // a pool for reads
	emb  embed.Embedder

	stmts                    stmtCache // reads
	insChunk, insKey, insVec *sql.Stmt // writes

	vmu  sync.Mutex   // held while the vector cache catches up
	vecs *vectorCache // nil until a vector search needs it
}

var _ retrieve.Index = (*Index)(nil)

type options struct {
	emb embed.Embedder
}

// Option configures Open.
type Option func(*options)

// WithEmbedder turns on vector search with e. Chunks are embedded when
// upserted; on Open, chunks with no vector in e's space (all of them, the
// first time, or after the embedder changed) are embedded before Open
// returns.
func WithEmbedder(e embed.Embedder) Option {
	return func(o *options) { o.emb = e }
}

// Open opens (creating if needed) the index in the SQLite file at path and
// brings its schema up to date.
func Open(ctx context.Context, path string, opts ...Option) (*Index, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if o.emb != nil && o.emb.Dim() <= 0 {
		return nil, fmt.Errorf("open lore index %s: embedder %s has dimension %d", path, o.emb.Name(), o.emb.Dim())
	}
	if _, err := sqlitefile.DSN(path); err != nil {
		return nil, fmt.Errorf("open lore index: %w", err)
	}
	dsn := func(extra ...string) string {
		d, _ := sqlitefile.DSN(path, append([]string{"synchronous(NORMAL)"}, extra...)...)
		return d // checked above
	}
	w, err := sql.Open("sqlite", dsn())
	if err != nil {
		return nil, fmt.Errorf("open lore index %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	ix := &Index{path: path, w: w, emb: o.emb}
	if err := ix.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	if err := ix.prepare(ctx); err != nil {
		ix.Close()
		return nil, err
	}
	// Readers map the file rather than copy pages through read(2): on a
	// 100,000-chunk index, page reads were a third of a search's time.
	r, err := sql.Open("sqlite", dsn("query_only(1)", "mmap_size(1073741824)"))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open lore index %s: %w", path, err)
	}
	r.SetMaxOpenConns(max(4, runtime.NumCPU()))
	ix.r = r
	ix.stmts.db = r
	if err := ix.syncEmbeddings(ctx); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// Path returns the database file's path.
func (ix *Index) Path() string { return ix.path }

// Close closes the index.
func (ix *Index) Close() error {
	ix.vmu.Lock()
	ix.vecs = nil
	ix.vmu.Unlock()
	ix.stmts.close() // a no-op before the readers are open
	for _, s := range []*sql.Stmt{ix.insChunk, ix.insKey, ix.insVec} {
		if s != nil {
			s.Close()
		}
	}
	var err error
	if ix.r != nil {
		err = ix.r.Close()
	}
	return errors.Join(err, ix.w.Close())
}

// migrate applies the embedded migrations the index lacks, each in its
// own transaction, and refuses a database from a newer Hearth.
func (ix *Index) migrate(ctx context.Context) error {
	if err := migrate.Apply(ctx, ix.w, migrations, "migrations", "lore_schema", "the lore index in "+ix.path); err != nil {
		return ix.explain("open the lore index", err)
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
