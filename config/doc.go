// Package config owns Hearth's server configuration: the Config type, its
// compiled-in defaults, and loading them in layers — defaults, then one file
// (TOML, or YAML by extension), then HEARTH__SECTION__KEY environment
// variables — with every bad value reported by key, by where it came from
// and by the form it should take. Unknown keys are errors, so a typo never
// silently falls back to a default. Write prints the effective configuration
// with secrets masked.
//
// Load is pure apart from reading the one file: the caller passes the
// environment in, so tests are hermetic and nothing here calls os.Getenv.
// The package must not act on the configuration (open listeners, create
// directories, read API key files, contact providers): it only describes it.
package config
