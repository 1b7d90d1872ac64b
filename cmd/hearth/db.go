package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
)

func newDB(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Inspect, migrate and copy the database",
		Long: `Work on the database every store lives in: the SQLite file hearth.db in the
data directory (the default), or the PostgreSQL database that database.url
(or HEARTH__DATABASE__URL) names.

  hearth db status    backend, where, each store's migrations, pgvector, rows per table
  hearth db migrate   apply the migrations the database lacks, and say which
  hearth db copy      move every table to another database, SQLite or PostgreSQL`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newDBStatus(g), newDBMigrate(g), newDBCopy(g))
	return cmd
}

// endpoint is the configured database: database.url, else hearth.db in
// the data directory.
func (g *globals) endpoint() (database.Endpoint, error) {
	cfg, _, err := g.loadConfig()
	if err != nil {
		return database.Endpoint{}, err
	}
	if u := string(cfg.Database.URL); u != "" {
		return database.ParseEndpoint(u)
	}
	dir, err := g.dataDir()
	if err != nil {
		return database.Endpoint{}, g.fail("cli.no_data_dir", nil, err)
	}
	return database.Endpoint{SQLite: sqlitedb.FileIn(dir)}, nil
}

func newDBStatus(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show the database: backend, migrations, pgvector, rows per table",
		Long: `Show the configured database without changing it: its backend and where it
is (the SQLite file, or PostgreSQL's host:port/database, never a password),
each store's applied and pending migrations, whether PostgreSQL has the
pgvector extension (the lore index's vector search uses its HNSW index when
it does, an exact scan when not), and how many rows each table holds.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := g.endpoint()
			if err != nil {
				return err
			}
			st, err := database.ReadStatus(cmd.Context(), e)
			if err != nil {
				return err
			}
			printStatus(g, st)
			return nil
		},
	}
}

func printStatus(g *globals, st *database.Status) {
	fmt.Fprintf(g.stdout, "backend   %s\nwhere     %s\n", st.Backend, st.Where)
	if !st.Exists {
		fmt.Fprintf(g.stdout, "\nNo database yet: 'hearth db migrate' (or any command that opens it) creates it.\n")
	}
	if st.Backend == database.Postgres {
		switch {
		case st.PGVector != "":
			fmt.Fprintf(g.stdout, "pgvector  %s (vector search uses its HNSW index)\n", st.PGVector)
		case st.PGVectorAvailable:
			fmt.Fprintf(g.stdout, "pgvector  available on the server, not created in this database (Hearth creates it at start-up when it may)\n")
		default:
			fmt.Fprintf(g.stdout, "pgvector  absent (vector search scans every vector)\n")
		}
	}
	fmt.Fprintln(g.stdout, "\nmigrations")
	w := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	pending := 0
	for _, c := range st.Components {
		state := "up to date"
		if len(c.Pending) > 0 {
			state = "pending: " + strings.Join(c.Pending, ", ")
			pending += len(c.Pending)
		}
		fmt.Fprintf(w, "  %s\tapplied %d of %d\t%s\n", c.Name, c.Applied, c.Latest, state)
	}
	w.Flush()
	if pending > 0 {
		fmt.Fprintf(g.stdout, "%d migrations pending: 'hearth db migrate' applies them.\n", pending)
	}
	fmt.Fprintln(g.stdout, "\nrows")
	for _, t := range st.Tables {
		n := fmt.Sprint(t.Rows)
		if t.Rows < 0 {
			n = "-" // not made yet: its migration is pending
		}
		fmt.Fprintf(g.stdout, "  %-28s %10s\n", t.Table, n)
	}
}

func newDBMigrate(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Apply the migrations the database lacks, and say which",
		Long: `Bring the configured database to this Hearth's schema: apply each store's
migrations that are not yet applied, in order, each in its own transaction,
and list them per store. Every command that opens the database does this
too; migrate does only this, so an upgrade can be applied (and checked with
'hearth db status') before the server starts. A database written by a newer
Hearth is refused, never changed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := g.endpoint()
			if err != nil {
				return err
			}
			before, after, err := database.Migrate(cmd.Context(), e)
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "%s at %s\n", after.Backend, after.Where)
			applied := 0
			for i, c := range after.Components {
				b := before.Components[i]
				if c.Applied == b.Applied {
					fmt.Fprintf(g.stdout, "  %-13s up to date (version %d)\n", c.Name, c.Applied)
					continue
				}
				done := b.Pending[:len(b.Pending)-len(c.Pending)]
				applied += len(done)
				fmt.Fprintf(g.stdout, "  %-13s applied %s (now version %d)\n", c.Name, strings.Join(done, ", "), c.Applied)
			}
			if applied == 0 {
				fmt.Fprintln(g.stdout, "Nothing to apply: the database is up to date.")
			} else {
				fmt.Fprintf(g.stdout, "Applied %d migrations.\n", applied)
			}
			return nil
		},
	}
}

func newDBCopy(g *globals) *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "copy --from SOURCE --to TARGET",
		Short: "Copy every table from one database to another (SQLite or PostgreSQL)",
		Long: `Copy a whole database, losslessly, between SQLite and PostgreSQL (either way,
or between two of a kind): games with their branches, turns, snapshots and
flags, narrative memory, the lore index with its vectors, the document
library with pages, images and ingest jobs, conversations, users, keys (their
hashes as they are), browser sessions, characters and scene images.

SOURCE and TARGET are sqlite:PATH (a data directory, or a .db file) or a
postgres:// URL. Both are first brought to this Hearth's schema. The target
must be empty: the copy never merges into existing data, and refuses with the
tables that hold rows. Full-text indexes and other derived data are rebuilt
by the target, and vectors converted exactly (float32 BLOBs on SQLite, real
arrays on PostgreSQL). The target is written in one transaction, so a copy
that fails leaves it empty. Afterwards every table's row count and content
hash are compared on both sides.

Stop the server while copying: rows written to the source during the copy
are not in it. To switch a server over, copy, then set database.url (or
remove it) and start the server again.`,
		Example: `  hearth db copy --from sqlite:$HOME/.local/share/hearth --to postgres://hearth@db/hearth
  hearth db copy --from postgres://hearth@db/hearth --to sqlite:/srv/hearth-backup`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" || to == "" {
				return usageError{fmt.Errorf("give both --from and --to (sqlite:PATH or a postgres:// URL)")}
			}
			src, err := database.ParseEndpoint(from)
			if err != nil {
				return usageError{fmt.Errorf("--from: %w", err)}
			}
			dst, err := database.ParseEndpoint(to)
			if err != nil {
				return usageError{fmt.Errorf("--to: %w", err)}
			}
			fmt.Fprintf(g.stderr, "copying %s to %s\n", src, dst)
			start := time.Now()
			last := time.Now()
			counts, err := database.Copy(cmd.Context(), src, dst, database.CopyOptions{
				Progress: func(table string, copied, total int64, done bool) {
					switch {
					case done:
						fmt.Fprintf(g.stderr, "  %-28s %d rows\n", table, copied)
					case time.Since(last) > 2*time.Second:
						last = time.Now()
						fmt.Fprintf(g.stderr, "  %-28s %d of %d rows…\n", table, copied, total)
					}
				},
			})
			if err != nil {
				return err
			}
			var rows int64
			for _, c := range counts {
				rows += c.Rows
			}
			fmt.Fprintf(g.stdout, "copied %d rows in %d tables from %s to %s in %s; row counts and content hashes match\n",
				rows, len(counts), src, dst, time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the database to copy: sqlite:PATH or postgres://…")
	cmd.Flags().StringVar(&to, "to", "", "the empty database to copy into: sqlite:PATH or postgres://…")
	return cmd
}
