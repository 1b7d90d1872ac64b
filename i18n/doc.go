// Package i18n holds the message catalogs every user-facing message of the
// API and the CLI comes from, and picks a language for each reader with the
// fallback requested → English → the message id: Middleware does it from an
// HTTP request's Accept-Language (and answers with Content-Language),
// Catalog.ForEnv from a command-line user's LANG / LC_* variables.
//
// Catalogs are TOML files embedded from locales/, one per package area and
// language (locales/AREA.LANG.toml), so areas add messages without editing
// each other's files. A test checks that every area has the same message
// ids and template fields in English and German. The package must not
// know any area's messages itself, read the process environment, or log:
// callers pass what it needs.
package i18n
