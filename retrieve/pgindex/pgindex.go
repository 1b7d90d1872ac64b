package pgindex

import (
	"context"
	stdembed "embed"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/memvec"
)

//go:embed migrations/*.sql
var migrations stdembed.FS

// Migrations are the lore index's numbered files, for a handle shared
// with the other stores.
var Migrations = pgdb.Migrations{Component: "lore", FS: migrations, Dir: "migrations", What: "the lore index"}

// VectorMode is how a vector search runs.
type VectorMode string

// The ways vectors are searched.
const (
	VectorsOff     VectorMode = "off"            // no embedder configured
	VectorsPGExact VectorMode = "pgvector-exact" // pgvector's exact cosine scan, a sequential scan in C (the default with pgvector)
	VectorsHNSW    VectorMode = "hnsw"           // pgvector's HNSW index, cosine distance (approximate; WithEfSearch)
	VectorsExact   VectorMode = "exact"          // an exact cosine scan in SQL (pgvector absent)
)

// Index is a retrieve.Index in PostgreSQL. It is safe for concurrent use.
type Index struct {
	h    *pgdb.DB
	own  bool // Close closes h: it was opened by Open
	emb  embedding.Embedder
	log  *slog.Logger
	mode VectorMode
	// iterative says pgvector can continue an HNSW scan until enough
	// rows pass the filter (0.8 and later).
	iterative bool
	pgvector  string // the extension's version, "" when absent
	tstats    termStats
	efSearch  int       // hnsw.ef_search, before raising it to the candidates wanted; 0 with VectorsPGExact
	mem       memText   // full text in memory (memtext.go)
	vecs      memVecs   // vectors in memory (memvec.go)
	vecPool   sync.Pool // memvec's search buffers
	cands     int       // candidates the in-memory vector search re-ranks; 0: exact
}

var _ retrieve.Index = (*Index)(nil)

type options struct {
	emb        embedding.Embedder
	log        *slog.Logger
	noPGVector bool
	efSearch   int
	noMemVecs  bool
	cands      int
	candsSet   bool
}

// Option configures New and Open.
type Option func(*options)

// WithEmbedder turns on vector search with e. Chunks are embedded when
// upserted; on New, chunks with no vector in e's space are embedded
// before New returns.
func WithEmbedder(e embedding.Embedder) Option { return func(o *options) { o.emb = e } }

// WithLogger reports what the index does at start-up (which vector
// search it uses); nil discards.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithoutPGVector uses the exact scan even when pgvector is installed:
// for measuring one against the other, and for running the conformance
// suite as on a server without the extension.
func WithoutPGVector() Option { return func(o *options) { o.noPGVector = true } }

// WithEfSearch searches vectors through pgvector's HNSW index, as wide as
// n (hnsw.ef_search, at least the candidates wanted, at most 1000),
// instead of pgvector's exact scan. Over 100,000 hashing vectors HNSW
// found 0.41 (n 40) to 0.91 (n 1000) of the exact ten nearest
// (BENCHMARKS.md), so the exact scan is the default.
func WithEfSearch(n int) Option { return func(o *options) { o.efSearch = n } }

// DefaultVectorCandidates is how many rows the in-memory vector search
// re-ranks exactly unless WithVectorCandidates says otherwise.
const DefaultVectorCandidates = memvec.DefaultCandidates

// WithVectorCandidates sets how many chunks the in-memory vector search
// scores exactly, picked first by an estimate from the query's largest
// dimensions, as sqliteindex.WithVectorCandidates does: 0 scores every
// chunk exactly. Without it, DefaultVectorCandidates applies.
func WithVectorCandidates(c int) Option {
	return func(o *options) { o.cands, o.candsSet = max(c, 0), true }
}

// WithoutMemVectors searches vectors in the database only (Mode says
// how), never in memory: for measuring one against the other. WithEfSearch
// implies it.
func WithoutMemVectors() Option { return func(o *options) { o.noMemVecs = true } }

// New serves the lore index from the shared handle h, whose migrations
// must include Migrations. With an embedder, it finds out whether
// pgvector is installed (creating the extension when it is available and
// the role may), prepares the HNSW index for the embedder's dimension,
// and embeds the chunks with no vector in its space. Close does not
// close h.
func New(ctx context.Context, h *pgdb.DB, opts ...Option) (*Index, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	if o.emb != nil && o.emb.Dim() <= 0 {
		return nil, fmt.Errorf("open lore index: embedder %s has dimension %d", o.emb.Name(), o.emb.Dim())
	}
	ix := &Index{h: h, emb: o.emb, log: o.log, mode: VectorsOff, efSearch: min(max(o.efSearch, 0), maxEfSearch), cands: DefaultVectorCandidates}
	if o.candsSet {
		ix.cands = o.cands
	}
	ix.vecs.off = o.emb == nil || o.noMemVecs || ix.efSearch > 0
	if o.emb != nil {
		ix.mode = VectorsExact
		if !o.noPGVector {
			if err := ix.findPGVector(ctx); err != nil {
				return nil, err
			}
		}
		if err := ix.syncEmbeddings(ctx); err != nil {
			return nil, err
		}
	}
	ix.log.Info("lore index: vector search", "mode", string(ix.mode), "how", ix.VectorSearch())
	ix.mem = memText{what: "full text", serves: "PostgreSQL's ranking", read: ix.readMem, update: ix.catchUpMem,
		size: func(s *memSnapshot) int { return s.ix.Docs() },
		attrs: func(s *memSnapshot) []any {
			return []any{"chunks", s.ix.Docs(), "postings", s.ix.Postings(), "bytes", s.ix.Bytes()}
		}}
	ix.vecs = memVecs{what: "vectors", serves: ix.VectorSearch(), read: ix.readVecs, update: ix.catchUpVecs, off: ix.vecs.off,
		size:  func(s *vecSnapshot) int { return s.set.Len() },
		attrs: func(s *vecSnapshot) []any { return []any{"vectors", s.set.Len(), "dim", s.set.Dim()} }}
	ix.mem.start()
	ix.vecs.start()
	// Build the in-memory full text and vectors: now when the index is
	// small, in the background when not (the database serves until then).
	if gen, err := ix.generation(ctx); err == nil {
		ix.memSnapshot(ctx, gen)
		ix.vecSnapshot(ctx, gen)
	}
	return ix, nil
}

// Open connects to the database at url with only the index's tables
// brought up to date, for tests and tools.
func Open(ctx context.Context, url string, opts ...Option) (*Index, error) {
	h, err := pgdb.Open(ctx, url, pgdb.Options{Migrations: []pgdb.Migrations{Migrations}})
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

// Close closes the handle when Open opened it.
func (ix *Index) Close() error {
	ix.mem.close()
	ix.vecs.close()
	if ix.own {
		ix.own = false
		return ix.h.Close()
	}
	return nil
}

// Mode reports how vector searches run.
func (ix *Index) Mode() VectorMode { return ix.mode }

// VectorSearch says in words how vector searches run, for the start-up
// log: "pgvector 0.8.1 HNSW (cosine)", "exact scan (pgvector is not
// installed)", "off (no embedder)", each after "in memory …, until
// loaded: " when the in-memory vectors serve.
func (ix *Index) VectorSearch() string {
	if ix.mode != VectorsOff && !ix.vecs.off {
		how := "in memory, " + strconv.Itoa(ix.cands) + " candidates by an int8 estimate re-ranked exactly"
		if ix.cands == 0 {
			how = "in memory, exact scan"
		}
		return how + "; until loaded, and while reloaded after a change the change log cannot bring in: " + ix.dbVectorSearch()
	}
	return ix.dbVectorSearch()
}

// dbVectorSearch says how the database searches vectors.
func (ix *Index) dbVectorSearch() string {
	switch ix.mode {
	case VectorsPGExact:
		return "pgvector " + ix.pgvector + " exact cosine scan, " + strconv.Itoa(ix.emb.Dim()) + " dimensions (HNSW index kept, not searched)"
	case VectorsHNSW:
		return "pgvector " + ix.pgvector + " HNSW index, cosine distance, " + strconv.Itoa(ix.emb.Dim()) + " dimensions, ef_search " + strconv.Itoa(ix.efSearch)
	case VectorsExact:
		if ix.pgvector != "" {
			return "exact cosine scan in SQL (pgvector " + ix.pgvector + " installed but not used)"
		}
		return "exact cosine scan in SQL (pgvector is not installed: every vector search reads every vector)"
	}
	return "off (no embedder)"
}

// findPGVector turns on HNSW search when the vector extension is there,
// creating it if the server has it and the role may.
func (ix *Index) findPGVector(ctx context.Context) error {
	pool := ix.h.Pool()
	version := func() (string, error) {
		var v string
		err := pool.QueryRow(ctx, `SELECT COALESCE((SELECT extversion FROM pg_extension WHERE extname = 'vector'), '')`).Scan(&v)
		return v, err
	}
	v, err := version()
	if err != nil {
		return ix.h.Explain("look for pgvector", err)
	}
	if v == "" {
		var available bool
		if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).Scan(&available); err != nil {
			return ix.h.Explain("look for pgvector", err)
		}
		if available {
			if _, err := pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector`); err != nil {
				ix.log.Warn("lore index: pgvector is installed on the server but could not be created; vector search scans every vector",
					"err", err.Error())
				return nil
			}
			if v, err = version(); err != nil {
				return ix.h.Explain("look for pgvector", err)
			}
		}
	}
	if v == "" {
		return nil
	}
	ix.pgvector, ix.mode = v, VectorsPGExact
	if ix.efSearch > 0 {
		ix.mode = VectorsHNSW
	}
	ix.iterative = versionAtLeast(v, 0, 8)
	return nil
}

// versionAtLeast compares a "major.minor[.patch]" version.
func versionAtLeast(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}
