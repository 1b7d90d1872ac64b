package database

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
)

// Endpoint is one side of a copy: a SQLite file or a PostgreSQL
// database.
type Endpoint struct {
	SQLite string // the file's path; "" for PostgreSQL
	URL    string // postgres://…; "" for SQLite
}

// ParseEndpoint reads "sqlite:PATH" (a data directory, or the database
// file itself when PATH ends in .db) or a postgres:// URL.
func ParseEndpoint(s string) (Endpoint, error) {
	switch {
	case strings.HasPrefix(s, "sqlite:"):
		p := strings.TrimPrefix(s, "sqlite:")
		if p == "" {
			return Endpoint{}, hearth.Errorf(hearth.Invalid, "sqlite: needs a path: sqlite:DATA_DIR or sqlite:FILE.db")
		}
		if fi, err := os.Stat(p); (err == nil && fi.IsDir()) || (err != nil && !strings.HasSuffix(p, ".db")) {
			p = sqlitedb.FileIn(p)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return Endpoint{}, err
		}
		return Endpoint{SQLite: abs}, nil
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		return Endpoint{URL: s}, nil
	}
	return Endpoint{}, hearth.Errorf(hearth.Invalid, "%q is neither sqlite:PATH (a data directory or a .db file) nor a postgres:// URL", redact(s))
}

// String names the endpoint without a password.
func (e Endpoint) String() string {
	if e.URL != "" {
		return redact(e.URL)
	}
	return "sqlite:" + e.SQLite
}

var passwordRE = regexp.MustCompile(`(://[^:/@]*:)[^@]*@`)

// redact hides a URL's password.
func redact(s string) string { return passwordRE.ReplaceAllString(s, "${1}***@") }

// CopyOptions configures Copy.
type CopyOptions struct {
	// Progress, when set, is told of each table's progress: after every
	// batch and once when the table is done (done true).
	Progress func(table string, copied, total int64, done bool)
}

// TableCount is one table's rows on each side after a copy.
type TableCount struct {
	Table  string
	Rows   int64
	Hash   string // the content hash, equal on both sides
	Target int64
}

// batch is how many rows go to the target per round trip.
const batch = 500

// Copy moves every store's rows from one database to another, whichever
// backends they are, losslessly: each column converted to the target's
// form (JSON lists and text arrays, float32 BLOBs and real arrays, time
// texts and nanoseconds), identities and creation order kept, derived
// data (full text, key tables) rebuilt by the target. Both databases are
// first brought to this Hearth's schema. The target must hold no rows:
// Copy never merges. The source is read in one snapshot and the target
// written in one transaction, so a failed copy leaves it empty. After
// the commit, every table's row count and content hash are compared.
func Copy(ctx context.Context, from, to Endpoint, o CopyOptions) ([]TableCount, error) {
	if from == to {
		return nil, hearth.Errorf(hearth.Invalid, "the source and the target are the same database (%s)", from)
	}
	src, err := openSide(ctx, from)
	if err != nil {
		return nil, fmt.Errorf("open the source: %w", err)
	}
	defer src.close()
	dst, err := openSide(ctx, to)
	if err != nil {
		return nil, fmt.Errorf("open the target: %w", err)
	}
	defer dst.close()
	ts := tables()

	// The target must be empty: never a silent merge.
	var full []string
	for _, t := range ts {
		n, err := dst.count(ctx, dst.db(), t)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			full = append(full, fmt.Sprintf("%s (%d rows)", t.name, n))
		}
	}
	if len(full) > 0 {
		return nil, hearth.Errorf(hearth.Conflict, "the target %s is not empty: %s; copy into an empty database (a new data directory, or a new PostgreSQL database or schema)",
			to, strings.Join(full, ", "))
	}

	rtx, err := src.beginRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the source: %w", err)
	}
	defer rtx.Rollback()
	wtx, err := dst.beginWrite(ctx)
	if err != nil {
		return nil, fmt.Errorf("write the target: %w", err)
	}
	defer wtx.Rollback()
	counts := make([]TableCount, len(ts))
	for i, t := range ts {
		total, err := src.count(ctx, rtx, t)
		if err != nil {
			return nil, err
		}
		counts[i] = TableCount{Table: t.name, Rows: total}
		ins, err := dst.inserter(ctx, wtx, t)
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", t.name, err)
		}
		var rows [][]any
		var copied int64
		flush := func() error {
			if len(rows) == 0 {
				return nil
			}
			if err := ins.insert(ctx, rows); err != nil {
				return err
			}
			copied += int64(len(rows))
			rows = rows[:0]
			if o.Progress != nil {
				o.Progress(t.name, copied, total, false)
			}
			return nil
		}
		err = src.scan(ctx, rtx, t, func(row []any) error {
			rows = append(rows, row)
			if len(rows) == batch {
				return flush()
			}
			return nil
		})
		if err == nil {
			err = flush()
		}
		if err == nil {
			err = ins.finish(ctx)
		}
		if err != nil {
			return nil, fmt.Errorf("copy %s to %s: %w", t.name, to, err)
		}
		if o.Progress != nil {
			o.Progress(t.name, copied, total, true)
		}
	}
	if err := wtx.Commit(); err != nil {
		return nil, fmt.Errorf("commit the copy to %s: %w", to, err)
	}
	rtx.Rollback()

	// Check what landed: rows and content, table by table.
	srcSums, err := checksums(ctx, src, ts)
	if err != nil {
		return nil, err
	}
	dstSums, err := checksums(ctx, dst, ts)
	if err != nil {
		return nil, err
	}
	var bad []string
	for i, t := range ts {
		counts[i].Hash, counts[i].Target = srcSums[i].Hash, dstSums[i].Rows
		if srcSums[i] != dstSums[i] {
			bad = append(bad, fmt.Sprintf("%s (%d rows there, %d here)", t.name, srcSums[i].Rows, dstSums[i].Rows))
		}
	}
	if len(bad) > 0 {
		return counts, fmt.Errorf("the copy in %s differs from the source in %s: delete the target and copy again, and report this", to, strings.Join(bad, ", "))
	}
	return counts, nil
}

// Checksum is one table's row count and the SHA-256 of its rows, read in
// creation order in the same form on either backend.
type Checksum struct {
	Table string
	Rows  int64
	Hash  string
}

// Checksums reads every copied table of the database at e and returns
// its row count and content hash, comparable across backends.
func Checksums(ctx context.Context, e Endpoint) ([]Checksum, error) {
	s, err := openSide(ctx, e)
	if err != nil {
		return nil, err
	}
	defer s.close()
	sums, err := checksums(ctx, s, tables())
	if err != nil {
		return nil, err
	}
	return sums, nil
}

func checksums(ctx context.Context, s side, ts []*table) ([]Checksum, error) {
	tx, err := s.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	out := make([]Checksum, len(ts))
	for i, t := range ts {
		h := sha256.New()
		var n int64
		if err := s.scan(ctx, tx, t, func(row []any) error {
			n++
			hashRow(h, t, row)
			return nil
		}); err != nil {
			return nil, err
		}
		out[i] = Checksum{Table: t.name, Rows: n, Hash: hex.EncodeToString(h.Sum(nil))}
	}
	return out, nil
}

// hashRow writes a row's values, each tagged with its type and length,
// so that no two rows hash alike by running together.
func hashRow(h hash.Hash, t *table, row []any) {
	var b [8]byte
	put := func(tag byte, p []byte) {
		h.Write([]byte{tag})
		binary.BigEndian.PutUint64(b[:], uint64(len(p)))
		h.Write(b[:])
		h.Write(p)
	}
	for _, v := range row {
		switch v := v.(type) {
		case nil:
			put('0', nil)
		case int64:
			binary.BigEndian.PutUint64(b[:], uint64(v))
			put('i', b[:])
		case float64:
			binary.BigEndian.PutUint64(b[:], math.Float64bits(v))
			put('f', b[:])
		case string:
			put('s', []byte(v))
		case []byte:
			put('b', v)
		case bool:
			put('t', []byte(strconv.FormatBool(v)))
		case []string:
			j, _ := json.Marshal(v)
			put('l', j)
		case []float32:
			put('v', embedding.Encode(v))
		default:
			panic(fmt.Sprintf("hash %s: unexpected %T", t.name, v))
		}
	}
	h.Write([]byte{'\n'})
}

// side is one database as Copy reads and writes it.
type side interface {
	db() querier
	count(ctx context.Context, q querier, t *table) (int64, error)
	scan(ctx context.Context, q querier, t *table, fn func([]any) error) error
	beginRead(ctx context.Context) (txn, error)
	beginWrite(ctx context.Context) (txn, error)
	inserter(ctx context.Context, tx txn, t *table) (inserter, error)
	close()
}

// querier is a handle or a transaction of either backend.
type querier any

type txn interface {
	Commit() error
	Rollback() error
}

type inserter interface {
	insert(ctx context.Context, rows [][]any) error
	finish(ctx context.Context) error
}

func openSide(ctx context.Context, e Endpoint) (side, error) {
	if e.URL != "" {
		h, err := pgdb.Open(ctx, e.URL, pgdb.Options{Migrations: PostgresMigrations()})
		if err != nil {
			return nil, err
		}
		return &pgSide{h: h}, nil
	}
	if err := os.MkdirAll(filepath.Dir(e.SQLite), 0o700); err != nil {
		return nil, err
	}
	h, err := sqlitedb.Open(ctx, e.SQLite, sqlitedb.Options{Migrations: Migrations()})
	if err != nil {
		return nil, err
	}
	return &sqliteSide{h: h}, nil
}

// ---- SQLite

type sqliteSide struct{ h *sqlitedb.DB }

func (s *sqliteSide) db() querier { return s.h.Reader() }
func (s *sqliteSide) close()      { s.h.Close() }

type sqlQuerier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

func where(skip string) string {
	if skip == "" {
		return ""
	}
	return " WHERE NOT (" + skip + ")"
}

func (s *sqliteSide) count(ctx context.Context, q querier, t *table) (int64, error) {
	var n int64
	err := q.(sqlQuerier).QueryRowContext(ctx, `SELECT count(*) FROM `+t.name+where(t.sqliteSkip)).Scan(&n)
	return n, s.h.Explain("count the rows of "+t.name, err)
}

func (s *sqliteSide) beginRead(ctx context.Context) (txn, error) {
	return s.h.Reader().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
}

func (s *sqliteSide) beginWrite(ctx context.Context) (txn, error) {
	return s.h.Writer().BeginTx(ctx, nil)
}

func (s *sqliteSide) scan(ctx context.Context, q querier, t *table, fn func([]any) error) error {
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.sqlite
	}
	rows, err := q.(sqlQuerier).QueryContext(ctx, `SELECT `+strings.Join(names, ", ")+` FROM `+t.name+where(t.sqliteSkip)+` ORDER BY `+t.sqliteKey)
	if err != nil {
		return s.h.Explain("read "+t.name, err)
	}
	defer rows.Close()
	raw := make([]any, len(t.cols))
	ptrs := make([]any, len(t.cols))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return s.h.Explain("read "+t.name, err)
		}
		row := make([]any, len(t.cols))
		for i, c := range t.cols {
			v, err := fromSQLite(c, raw[i])
			if err != nil {
				return fmt.Errorf("read %s.%s: %w", t.name, c.sqlite, err)
			}
			row[i] = v
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	return s.h.Explain("read "+t.name, rows.Err())
}

// fromSQLite turns a value as SQLite's driver gives it into its kind's
// Go form.
func fromSQLite(c column, v any) (any, error) {
	if v == nil {
		if c.null {
			return nil, nil
		}
		return nil, errors.New("NULL in a NOT NULL column")
	}
	switch c.kind {
	case kInt:
		if n, ok := v.(int64); ok {
			return n, nil
		}
	case kFloat:
		switch f := v.(type) {
		case float64:
			return f, nil
		case int64:
			return float64(f), nil
		}
	case kText:
		switch s := v.(type) {
		case string:
			return s, nil
		case []byte:
			return string(s), nil
		}
	case kBlob:
		switch b := v.(type) {
		case []byte:
			return append([]byte{}, b...), nil
		case string:
			return []byte(b), nil
		}
	case kBool:
		if n, ok := v.(int64); ok {
			return n != 0, nil
		}
	case kList:
		if s, ok := v.(string); ok {
			var l []string
			if err := json.Unmarshal([]byte(s), &l); err != nil {
				return nil, fmt.Errorf("not a JSON list of strings: %w", err)
			}
			if l == nil {
				l = []string{}
			}
			return l, nil
		}
	case kVector:
		if b, ok := v.([]byte); ok {
			return embedding.Decode(nil, b)
		}
	case kRFC3339, kStamp:
		if s, ok := v.(string); ok {
			layout := time.RFC3339Nano
			if c.kind == kStamp {
				layout = stampLayout
			}
			t, err := time.Parse(layout, s)
			if err != nil {
				return nil, err
			}
			return t.UnixNano(), nil
		}
	}
	return nil, fmt.Errorf("unexpected %T", v)
}

// toSQLite is fromSQLite's inverse.
func toSQLite(c column, v any) any {
	switch v := v.(type) {
	case nil:
		return nil
	case bool:
		if v {
			return int64(1)
		}
		return int64(0)
	case []string:
		if len(v) == 0 {
			return "[]"
		}
		b, _ := json.Marshal(v) // a []string always marshals
		return string(b)
	case []float32:
		return embedding.Encode(v)
	case []byte:
		if v == nil {
			return []byte{} // NOT NULL (a NULL came as nil, above)
		}
	case int64:
		switch c.kind {
		case kRFC3339:
			return time.Unix(0, v).UTC().Format(time.RFC3339Nano)
		case kStamp:
			return time.Unix(0, v).UTC().Format(stampLayout)
		}
	}
	return v
}

type sqliteInserter struct {
	t    *table
	tx   *sql.Tx
	stmt *sql.Stmt
}

func (s *sqliteSide) inserter(ctx context.Context, tx txn, t *table) (inserter, error) {
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.sqlite
	}
	stmt, err := tx.(*sql.Tx).PrepareContext(ctx, `INSERT INTO `+t.name+` (`+strings.Join(names, ", ")+`) VALUES (`+
		strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ")+`)`)
	if err != nil {
		return nil, err
	}
	return &sqliteInserter{t: t, tx: tx.(*sql.Tx), stmt: stmt}, nil
}

func (in *sqliteInserter) insert(ctx context.Context, rows [][]any) error {
	args := make([]any, len(in.t.cols))
	for _, row := range rows {
		for i, c := range in.t.cols {
			args[i] = toSQLite(c, row[i])
		}
		if _, err := in.stmt.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}

// finish rebuilds what SQLite derives and its triggers do not: the lore
// index's key table, as sqliteindex's Upsert writes it.
func (in *sqliteInserter) finish(ctx context.Context) error {
	defer in.stmt.Close()
	if in.t.name != "lore_chunks" {
		return nil
	}
	_, err := in.tx.ExecContext(ctx, `INSERT OR IGNORE INTO lore_keys (kind, value, chunk)
		SELECT 'tag', j.value, c.n FROM lore_chunks c, json_each(c.tags) j
		UNION ALL SELECT 'thread', j.value, c.n FROM lore_chunks c, json_each(c.threads) j
		UNION ALL SELECT 'entity', c.entity_id, c.n FROM lore_chunks c WHERE c.entity_id <> ''
		UNION ALL SELECT 'entity', j.value, c.n FROM lore_chunks c, json_each(c.refs) j`)
	return err
}

// ---- PostgreSQL

type pgSide struct{ h *pgdb.DB }

func (s *pgSide) db() querier { return s.h.Pool() }
func (s *pgSide) close()      { s.h.Close() }

type pgQuerier interface {
	Query(ctx context.Context, q string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, q string, args ...any) pgx.Row
}

func (s *pgSide) count(ctx context.Context, q querier, t *table) (int64, error) {
	var n int64
	err := q.(pgQuerier).QueryRow(ctx, `SELECT count(*) FROM `+t.name+where(t.pgSkip)).Scan(&n)
	return n, s.h.Explain("count the rows of "+t.name, err)
}

// pgTx adapts pgx.Tx to txn (pgx's Commit and Rollback take a context).
type pgTx struct {
	pgx.Tx
	ctx context.Context
}

func (t pgTx) Commit() error   { return t.Tx.Commit(t.ctx) }
func (t pgTx) Rollback() error { return t.Tx.Rollback(context.WithoutCancel(t.ctx)) }

func (s *pgSide) beginRead(ctx context.Context) (txn, error) {
	tx, err := s.h.Pool().BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, s.h.Explain("begin reading", err)
	}
	return pgTx{tx, ctx}, nil
}

func (s *pgSide) beginWrite(ctx context.Context) (txn, error) {
	tx, err := s.h.Pool().Begin(ctx)
	if err != nil {
		return nil, s.h.Explain("begin writing", err)
	}
	return pgTx{tx, ctx}, nil
}

func (s *pgSide) scan(ctx context.Context, q querier, t *table, fn func([]any) error) error {
	if tx, ok := q.(pgTx); ok {
		q = tx.Tx
	}
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.pg
	}
	rows, err := q.(pgQuerier).Query(ctx, `SELECT `+strings.Join(names, ", ")+` FROM `+t.name+where(t.pgSkip)+` ORDER BY `+t.pgKey)
	if err != nil {
		return s.h.Explain("read "+t.name, err)
	}
	defer rows.Close()
	dst := make([]any, len(t.cols))
	for i, c := range t.cols {
		dst[i] = pgDest(c)
	}
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			return s.h.Explain("read "+t.name, err)
		}
		row := make([]any, len(t.cols))
		for i, c := range t.cols {
			row[i] = fromPG(c, dst[i])
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	return s.h.Explain("read "+t.name, rows.Err())
}

// pgDest is where pgx scans a column of kind k: a pointer to a pointer
// for a nullable scalar.
func pgDest(c column) any {
	switch c.kind {
	case kInt, kRFC3339, kStamp:
		if c.null {
			return new(*int64)
		}
		return new(int64)
	case kFloat:
		if c.null {
			return new(*float64)
		}
		return new(float64)
	case kText:
		if c.null {
			return new(*string)
		}
		return new(string)
	case kBool:
		return new(bool)
	case kBlob:
		return new([]byte)
	case kList:
		return new([]string)
	case kVector:
		return new([]float32)
	}
	panic("unknown kind")
}

// fromPG reads a scanned destination into its kind's Go form.
func fromPG(c column, d any) any {
	switch d := d.(type) {
	case *int64:
		return *d
	case **int64:
		if *d == nil {
			return nil
		}
		return **d
	case *float64:
		return *d
	case **float64:
		if *d == nil {
			return nil
		}
		return **d
	case *string:
		return *d
	case **string:
		if *d == nil {
			return nil
		}
		return **d
	case *bool:
		return *d
	case *[]byte:
		if *d == nil {
			if c.null {
				return nil
			}
			return []byte{}
		}
		return append([]byte{}, *d...)
	case *[]string:
		if *d == nil {
			return []string{}
		}
		return append([]string{}, *d...)
	case *[]float32:
		if *d == nil {
			return nil
		}
		return append([]float32{}, *d...)
	}
	panic(fmt.Sprintf("unexpected destination %T", d))
}

type pgInserter struct {
	s   *pgSide
	t   *table
	tx  pgx.Tx
	sql string
}

var placeholderRE = regexp.MustCompile(`\$([a-z_]+)`)

func (s *pgSide) inserter(ctx context.Context, tx txn, t *table) (inserter, error) {
	names := make([]string, 0, len(t.cols)+len(t.pgComputed))
	vals := make([]string, 0, cap(names))
	pos := map[string]string{}
	for i, c := range t.cols {
		names = append(names, c.pg)
		vals = append(vals, "$"+strconv.Itoa(i+1))
		pos[c.pg] = "$" + strconv.Itoa(i+1)
	}
	for _, pc := range t.pgComputed {
		names = append(names, pc[0])
		vals = append(vals, placeholderRE.ReplaceAllStringFunc(pc[1], func(m string) string { return pos[m[1:]] }))
	}
	q := `INSERT INTO ` + t.name + ` (` + strings.Join(names, ", ") + `)`
	if t.identity != "" {
		q += ` OVERRIDING SYSTEM VALUE`
	}
	q += ` VALUES (` + strings.Join(vals, ", ") + `)`
	return &pgInserter{s: s, t: t, tx: tx.(pgTx).Tx, sql: q}, nil
}

func (in *pgInserter) insert(ctx context.Context, rows [][]any) error {
	var b pgx.Batch
	for _, row := range rows {
		args := make([]any, len(row))
		for i, v := range row {
			if l, ok := v.([]string); ok && l == nil {
				v = []string{}
			}
			args[i] = v
		}
		b.Queue(in.sql, args...)
	}
	return in.s.h.Explain("write "+in.t.name, in.tx.SendBatch(ctx, &b).Close())
}

// finish moves an identity's sequence past the copied values, so that
// the next row the store inserts gets a fresh one.
func (in *pgInserter) finish(ctx context.Context) error {
	if in.t.identity == "" {
		return nil
	}
	_, err := in.tx.Exec(ctx, `SELECT setval(pg_get_serial_sequence($1, $2), max(`+in.t.identity+`)) FROM `+in.t.name, in.t.name, in.t.identity)
	return in.s.h.Explain("advance the identity of "+in.t.name, err)
}
