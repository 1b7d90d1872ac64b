package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
	"github.com/hearth-rpg/hearth/internal/sqlitefile"
)

// Status is what `hearth db status` reports about a database, read
// without changing it.
type Status struct {
	Backend string // SQLite or Postgres
	Where   string // the file, or host:port/database
	Exists  bool   // false: a SQLite file not made yet
	// Components are every store's migrations, in the order they apply.
	Components []Component
	// PGVector is the pgvector extension's version when created in the
	// database; "" when not. PGVectorAvailable says the server has it.
	PGVector          string
	PGVectorAvailable bool
	// Tables are the row counts of every store's tables (-1: the table
	// does not exist yet).
	Tables []TableRows
}

// Component is one store's migrations.
type Component struct {
	Name    string
	What    string
	Applied int      // the newest version recorded
	Latest  int      // the newest this Hearth knows
	Pending []string // files not applied yet
}

// TableRows is one table's row count.
type TableRows struct {
	Table, Store string
	Rows         int64
}

type migrationSet struct {
	component, what string
	fsys            fs.FS
	dir             string
}

func sets(e Endpoint) []migrationSet {
	var out []migrationSet
	if e.URL != "" {
		for _, m := range PostgresMigrations() {
			out = append(out, migrationSet{m.Component, m.What, m.FS, m.Dir})
		}
		return out
	}
	for _, m := range Migrations() {
		out = append(out, migrationSet{m.Component, m.What, m.FS, m.Dir})
	}
	return out
}

type file struct {
	version int
	name    string
}

func (m migrationSet) files() ([]file, error) {
	names, err := fs.Glob(m.fsys, path.Join(m.dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	var out []file
	for _, n := range names {
		v, err := strconv.Atoi(strings.SplitN(path.Base(n), "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migration %s of %s: its name must start with its number", n, m.component)
		}
		out = append(out, file{v, path.Base(n)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// ReadStatus reports on the database at e without migrating or writing
// it.
func ReadStatus(ctx context.Context, e Endpoint) (*Status, error) {
	st := &Status{Backend: SQLite, Where: e.SQLite}
	var (
		version func(component string) (int, error)
		count   func(table string, skip string) (int64, bool, error)
	)
	if e.URL != "" {
		st.Backend = Postgres
		cfg, err := pgxpool.ParseConfig(e.URL)
		if err != nil {
			return nil, errors.New("database.url is not a valid postgres:// URL")
		}
		st.Where = fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
		conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
		if err != nil {
			cause := err
			for u := errors.Unwrap(cause); u != nil; u = errors.Unwrap(cause) {
				cause = u // the dial error, without pgx's restatement of the config
			}
			// pgx lists each connection attempt on a line of its own: the
			// first says enough.
			first, _, _ := strings.Cut(cause.Error(), "\n")
			return nil, fmt.Errorf("cannot reach PostgreSQL at %s (%s): is it running? check database.url", st.Where, first)
		}
		defer conn.Close(context.WithoutCancel(ctx))
		st.Exists = true
		if err := conn.QueryRow(ctx, `SELECT COALESCE((SELECT extversion FROM pg_extension WHERE extname = 'vector'), ''),
			EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).Scan(&st.PGVector, &st.PGVectorAvailable); err != nil {
			return nil, fmt.Errorf("look for pgvector (PostgreSQL at %s): %w", st.Where, err)
		}
		exists := func(table string) (bool, error) {
			var ok bool
			err := conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&ok)
			return ok, err
		}
		hasSchema, err := exists("hearth_schema")
		if err != nil {
			return nil, err
		}
		version = func(component string) (int, error) {
			if !hasSchema {
				return 0, nil
			}
			var v int
			err := conn.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM hearth_schema WHERE component = $1`, component).Scan(&v)
			return v, err
		}
		count = func(table, skip string) (int64, bool, error) {
			if ok, err := exists(table); err != nil || !ok {
				return 0, false, err
			}
			var n int64
			err := conn.QueryRow(ctx, `SELECT count(*) FROM `+table+where(skip)).Scan(&n)
			return n, true, err
		}
	} else {
		if _, err := os.Stat(e.SQLite); err == nil {
			st.Exists = true
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		version = func(string) (int, error) { return 0, nil }
		count = func(string, string) (int64, bool, error) { return 0, false, nil }
		if st.Exists {
			dsn, err := sqlitefile.DSN(e.SQLite, "query_only(1)")
			if err != nil {
				return nil, err
			}
			db, err := sql.Open("sqlite", dsn)
			if err != nil {
				return nil, err
			}
			defer db.Close()
			exists := func(table string) (bool, error) {
				var n int
				err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n)
				return n > 0, sqlitefile.Explain("read", e.SQLite, err)
			}
			hasSchema, err := exists("hearth_schema")
			if err != nil {
				return nil, err
			}
			version = func(component string) (int, error) {
				if !hasSchema {
					return 0, nil
				}
				var v int
				err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM hearth_schema WHERE component = ?`, component).Scan(&v)
				return v, err
			}
			count = func(table, skip string) (int64, bool, error) {
				if ok, err := exists(table); err != nil || !ok {
					return 0, false, err
				}
				var n int64
				err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+table+where(skip)).Scan(&n)
				return n, true, err
			}
		}
	}
	for _, m := range sets(e) {
		files, err := m.files()
		if err != nil {
			return nil, err
		}
		have, err := version(m.component)
		if err != nil {
			return nil, fmt.Errorf("read the schema version of %s: %w", m.component, err)
		}
		c := Component{Name: m.component, What: m.what, Applied: have}
		for _, f := range files {
			c.Latest = f.version
			if f.version > have {
				c.Pending = append(c.Pending, f.name)
			}
		}
		st.Components = append(st.Components, c)
	}
	for _, t := range tables() {
		skip := t.sqliteSkip
		if e.URL != "" {
			skip = t.pgSkip
		}
		n, ok, err := count(t.name, skip)
		if err != nil {
			return nil, fmt.Errorf("count the rows of %s: %w", t.name, err)
		}
		if !ok {
			n = -1
		}
		st.Tables = append(st.Tables, TableRows{Table: t.name, Store: t.store, Rows: n})
	}
	return st, nil
}

// Migrate brings the database at e to this Hearth's schema and returns
// its status before and after.
func Migrate(ctx context.Context, e Endpoint) (before, after *Status, err error) {
	if before, err = ReadStatus(ctx, e); err != nil {
		return nil, nil, err
	}
	if e.URL != "" {
		h, err := pgdb.Open(ctx, e.URL, pgdb.Options{Migrations: PostgresMigrations()})
		if err != nil {
			return nil, nil, err
		}
		h.Close()
	} else {
		if err := os.MkdirAll(filepath.Dir(e.SQLite), 0o700); err != nil {
			return nil, nil, err
		}
		h, err := sqlitedb.Open(ctx, e.SQLite, sqlitedb.Options{Migrations: Migrations()})
		if err != nil {
			return nil, nil, err
		}
		h.Close()
	}
	after, err = ReadStatus(ctx, e)
	return before, after, err
}
