// Package ingest turns books — PDF, EPUB, Markdown and plain text — into
// one document model (pages, an outline tree, images) and runs the staged
// pipeline that makes them searchable in the library and writes them out
// as content packs (seed 000 §4.8, seed 004 "Ingest Pipeline").
//
// Extractors live in subpackages, one per format; this package owns the
// model they produce and must not depend on any of them.
package ingest
