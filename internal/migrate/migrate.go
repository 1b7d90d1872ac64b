package migrate

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrNewer is wrapped by the error Apply returns for a database written by
// a newer Hearth.
var ErrNewer = fmt.Errorf("written by a newer Hearth")

// Apply runs the migrations in fsys's dir that db has not had, in order,
// recording each in table (version, applied_at). what names the schema in
// errors ("the lore index"). A database whose recorded version is beyond
// the newest file is refused: this Hearth would not understand it.
func Apply(ctx context.Context, db *sql.DB, fsys fs.FS, dir, table, what string) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (
		version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL DEFAULT 0)`); err != nil {
		return fmt.Errorf("prepare the schema of %s: %w", what, err)
	}
	var have int
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM `+table).Scan(&have); err != nil {
		return fmt.Errorf("read the schema version of %s: %w", what, err)
	}
	files, err := fs.Glob(fsys, path.Join(dir, "*.sql"))
	if err != nil {
		return err
	}
	slices.Sort(files)
	latest := 0
	for _, f := range files {
		v, err := strconv.Atoi(strings.SplitN(path.Base(f), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s of %s: its name must start with its number", f, what)
		}
		latest = max(latest, v)
		if v <= have {
			continue
		}
		body, err := fs.ReadFile(fsys, f)
		if err != nil {
			return err
		}
		if err := apply(ctx, db, table, v, string(body)); err != nil {
			return fmt.Errorf("migrate %s to %s: %w", what, path.Base(f), err)
		}
	}
	if have > latest {
		return fmt.Errorf("%s is %w (schema %d; this one knows up to %d): upgrade Hearth, or use another --data directory", what, ErrNewer, have, latest)
	}
	return nil
}

func apply(ctx context.Context, db *sql.DB, table string, v int, body string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (version, applied_at) VALUES (?, ?)`, v, time.Now().UnixNano()); err != nil {
		return err
	}
	return tx.Commit()
}
