// Package markdown reads Markdown and plain text into an ingest.Document.
//
// Markdown: the heading tree is the outline, and each top-level section
// is one page, so every passage has a page to cite; a file without
// headings is paged like plain text. Plain text: paragraphs (blank-line
// separated) gathered into pages of about PageWords words, never split
// inside a paragraph unless one paragraph alone is far over that.
//
// It reads bytes it is given and nothing else; it must not interpret
// links, HTML or front matter beyond keeping them as text.
package markdown
