// Package chunk defines the unit of retrieval: a passage of authored lore,
// a rulebook page section or a piece of play history, with the metadata
// that filters and ranks it (pack, file, section path, entity references,
// tags, precedence tier, access level) and its cl100k token count.
//
// It also splits text into chunks: Markdown by heading and paragraph,
// capped in tokens with sentence-boundary splitting, and structured values
// by field group. It knows nothing of packs, campaigns or indexes; the
// content and ingest packages fill in the metadata, retrieve stores and
// searches the result.
package chunk
