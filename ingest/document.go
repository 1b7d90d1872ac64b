package ingest

// Document is a book as extracted: its pages in reading order, its section
// tree, and its images. Formats without pages (EPUB, Markdown, text) use
// their natural units as pages — an EPUB spine item, a Markdown top-level
// section — so that every passage has a page to cite.
type Document struct {
	Title  string `json:"title"`
	Format string `json:"format"` // pdf, epub, markdown, text
	Source string `json:"source"` // the file name it was read from
	Hash   string `json:"hash"`   // sha256 hex of the file's bytes
	// Pages in order; Pages[i].Number == i+1.
	Pages []Page `json:"pages"`
	// Outline is the section tree: the PDF's bookmarks, the EPUB's
	// navigation document, the Markdown headings, or what a structure
	// detector found. Empty when none could be found.
	Outline []*Section `json:"outline,omitempty"`
	Images  []Image    `json:"images,omitempty"`
	// Meta holds what the file says of itself: author, language, producer.
	Meta map[string]string `json:"meta,omitempty"`
	// Warnings say what the extractor skipped and why (an image it could
	// not read, a reference that leaves the book), for the user to see.
	Warnings []string `json:"warnings,omitempty"`
}

// Page is one page's text in reading order, with running headers,
// footers and page numbers removed.
type Page struct {
	Number int    `json:"number"` // 1-based
	Label  string `json:"label,omitempty"`
	Text   string `json:"text"`
}

// Section is a node of the outline.
type Section struct {
	Title    string     `json:"title"`
	Level    int        `json:"level"` // 1 for top-level sections
	Page     int        `json:"page"`  // where it starts; 0 when unknown
	Children []*Section `json:"children,omitempty"`
}

// Image is a picture from the document, as WebP or, kept as it was, JPEG.
type Image struct {
	Page   int `json:"page"`
	Index  int `json:"index"` // 0-based position on its page
	Width  int `json:"width"`
	Height int `json:"height"`
	// Data is the picture's bytes, of MediaType: image/webp (lossless)
	// or image/jpeg (a JPEG kept as the document had it).
	Data      []byte `json:"-"`
	MediaType string `json:"media_type,omitempty"`
	// Description is a vision model's caption, when one is configured;
	// Context is the text around the image on its page.
	Description string `json:"description,omitempty"`
	Context     string `json:"context,omitempty"`
}

// Depth is the depth of the outline tree: 0 without one.
func (d *Document) Depth() int {
	var depth func([]*Section) int
	depth = func(ss []*Section) int {
		m := 0
		for _, s := range ss {
			m = max(m, 1+depth(s.Children))
		}
		return m
	}
	return depth(d.Outline)
}

// Walk calls fn for every section of the outline, parents before children.
func (d *Document) Walk(fn func(s *Section)) {
	var walk func([]*Section)
	walk = func(ss []*Section) {
		for _, s := range ss {
			fn(s)
			walk(s.Children)
		}
	}
	walk(d.Outline)
}
