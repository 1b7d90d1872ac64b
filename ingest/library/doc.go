// Package library is the document library: ingested documents — their
// record, page texts and images with their descriptions — and the
// server's ingest jobs. The Library service keeps a document's rows in a
// Store (package sqlitelibrary implements it over the one database;
// librarytest is the conformance suite any Store must pass) and puts its
// chunks in the lore index as pack "doc:<id>", so `hearth search` finds
// them with page citations. Images are found by the words of their
// descriptions and of the text around them (SearchImages).
//
// Access belongs to the document alone: pages and images have no level
// of their own and a Store reads them through their document, so
// changing a document's level changes what every part of it shows.
//
// A document is written whole or not at all: its rows go in one
// transaction after its chunks are in the index, and a failure removes
// the chunks again. It does not extract, chunk or caption anything itself.
package library
