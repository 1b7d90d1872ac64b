// Package i18n holds the message catalogs every user-facing message of the
// API and the CLI comes from, and picks a language for each request from
// Accept-Language with the fallback requested → English → the message id.
//
// Catalogs are TOML files embedded from locales/, one per package area and
// language (locales/NAME.LANG.toml), so areas add messages without editing
// each other's files.
package i18n
