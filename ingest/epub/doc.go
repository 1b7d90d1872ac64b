// Package epub reads EPUB 2 and 3 books into an ingest.Document: the
// spine in reading order, one page per spine item, with XHTML turned into
// Markdown-like text (headings as # lines, list items as "- ", table rows
// as "| a | b |"), and the navigation document (nav.xhtml, else toc.ncx)
// as the outline.
//
// Books come from outside, so reading is defensive: every path is
// resolved inside the archive and one that climbs out of it or is
// absolute is refused, and Limits cap the entry count and the
// uncompressed bytes per entry and in all, against zip bombs. It does not
// extract images (that needs a WebP encoder) and never writes files.
package epub
