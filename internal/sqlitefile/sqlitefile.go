package sqlitefile

import (
	"fmt"
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
