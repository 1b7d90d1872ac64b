// Package epub reads EPUB 2 and 3 books into an ingest.Document: the
// spine in reading order, one page per spine item, with XHTML turned into
// Markdown-like text (headings as # lines, list items as "- ", table rows
// as "| a | b |"), the navigation document (nav.xhtml, else toc.ncx) as
// the outline, and the pictures the pages show (<img src>, SVG <image
// href>) as WebP images on the page of their spine item.
//
// Books come from outside, so reading is defensive: every path is
// resolved inside the archive and one that climbs out of it or is
// absolute is refused (an image so referenced is skipped with a warning),
// and Limits cap the entry count, the uncompressed bytes per entry and in
// all, and the images kept, against zip bombs. It never writes files.
package epub
