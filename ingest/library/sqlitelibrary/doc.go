// Package sqlitelibrary is the library.Store over SQLite: tables
// prefixed library_ in the data directory's hearth.db (schema in numbered
// migrations, versioned as component "library"). Pages and images have
// no access column and are read through a join with their document.
// Images are searched with an FTS5 table over their descriptions
// (weighted most) and the text around them; user text is reduced to
// quoted words and never reaches FTS5's syntax. Ingest jobs are rows of
// library_jobs.
package sqlitelibrary
