package sqlitefile

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Explain wraps err from doing something with the SQLite file at path,
// adding what to do about the failures a user can fix.
func Explain(doing, path string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "file is not a database") || strings.Contains(msg, "SQLITE_NOTADB"):
		return fmt.Errorf("%s: %s is not a Hearth database (not a SQLite database at all: %w); move it away or choose another --data directory", doing, path, err)
	case strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_BUSY"):
		return fmt.Errorf("%s: %s is busy: another process is writing to it (%w); try again, or close the other Hearth using it", doing, path, err)
	case strings.Contains(msg, "readonly") || strings.Contains(msg, "SQLITE_READONLY"):
		return fmt.Errorf("%s: %s is read-only (%w); check its permissions", doing, path, err)
	}
	return fmt.Errorf("%s: %s: %w", doing, path, err)
}

// DSN returns the modernc.org/sqlite data source name Hearth opens path
// with: write-ahead logging, a 10 s busy timeout, transactions that take the
// write lock when they begin (no upgrade deadlocks), and the given pragmas,
// such as "synchronous(NORMAL)" or "query_only(1)". It creates path's
// directory. A path holding ? or # cannot be told from the DSN's own
// syntax, so it is refused.
func DSN(path string, pragmas ...string) (string, error) {
	if strings.ContainsAny(path, "?#") {
		return "", fmt.Errorf("database path %q: the path may not contain ? or #", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("create the directory of %s: %w", path, err)
	}
	q := url.Values{}
	for _, p := range append([]string{"journal_mode(WAL)", "busy_timeout(10000)"}, pragmas...) {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode(), nil
}
