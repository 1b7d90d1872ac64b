// Package library stores ingested documents — their record, page texts
// and images with their descriptions — in SQLite tables prefixed library_
// inside the data directory's hearth.db (schema in numbered migrations),
// and puts their chunks in the lore index as pack "doc:<id>" so `hearth
// search` finds them with page citations. Images are found by the words
// of their descriptions and of the text around them (SearchImages).
//
// Access belongs to the document alone: pages and images have no access
// column and are read through a join with their document, so changing a
// document's level changes what every part of it shows.
//
// A document is written whole or not at all: its rows go in one
// transaction after its chunks are in the index, and a failure removes
// the chunks again. It does not extract, chunk or caption anything itself.
package library
