package epub

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pageText turns one XHTML spine item into text that keeps its structure
// in Markdown's terms, so the chunker can split it at headings and rows.
func pageText(b []byte) (text, title string) {
	p := readPage(b)
	return p.text, p.title
}

// page is what one spine item holds: its text, first heading, and the
// images it shows, in order, placed in its raw (unfolded) text.
type page struct {
	text, title string
	images      []imageRef
	raw         string
}

func readPage(b []byte) page {
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		return page{}
	}
	w := &textWriter{}
	w.node(doc, 0)
	return page{text: w.String(), title: w.firstHeading, images: w.images, raw: w.b.String()}
}

// textWriter accumulates text with collapsed inline whitespace and blank
// lines between blocks.
type textWriter struct {
	b            strings.Builder
	pendingSpace bool
	atLineStart  bool
	firstHeading string
	pre          int
	images       []imageRef
}

func (w *textWriter) String() string {
	lines := strings.Split(w.b.String(), "\n")
	out := make([]string, 0, len(lines))
	blank := true
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		out = append(out, l)
		blank = false
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// text writes inline text, collapsing whitespace outside <pre>.
func (w *textWriter) text(s string) {
	if s == "" {
		return
	}
	if w.pre > 0 {
		w.b.WriteString(s)
		w.atLineStart = strings.HasSuffix(s, "\n")
		return
	}
	fields := strings.FieldsFunc(s, isSpace)
	if isSpace(rune(s[0])) {
		w.pendingSpace = true
	}
	for i, f := range fields {
		if (i > 0 || w.pendingSpace) && !w.atLineStart {
			w.b.WriteByte(' ')
		}
		w.b.WriteString(f)
		w.atLineStart = false
	}
	if len(fields) > 0 {
		w.pendingSpace = isSpace(rune(s[len(s)-1]))
	}
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\u00a0'
}

// line ends the current line; block leaves a blank line.
func (w *textWriter) line() {
	if !w.atLineStart {
		w.b.WriteByte('\n')
	}
	w.atLineStart, w.pendingSpace = true, false
}

func (w *textWriter) block() {
	w.line()
	w.b.WriteByte('\n')
}

func (w *textWriter) raw(s string) {
	w.b.WriteString(s)
	w.atLineStart, w.pendingSpace = false, false
}

func (w *textWriter) children(n *html.Node, depth int) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c, depth)
	}
}

// node writes n. depth is the list nesting, for indenting items.
func (w *textWriter) node(n *html.Node, depth int) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.DocumentNode:
		w.children(n, depth)
		return
	case html.ElementNode:
	default:
		return
	}
	switch n.DataAtom {
	case atom.Head, atom.Script, atom.Style, atom.Template, atom.Noscript:
		return
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		level := int(n.Data[1] - '0')
		title := strings.Join(strings.Fields(textOf(n)), " ")
		if title == "" {
			return
		}
		if w.firstHeading == "" {
			w.firstHeading = title
		}
		w.block()
		w.raw(strings.Repeat("#", level) + " " + title)
		w.block()
	case atom.Br:
		w.line()
	case atom.Hr:
		w.block()
	case atom.Pre:
		w.block()
		w.pre++
		w.children(n, depth)
		w.pre--
		w.block()
	case atom.Ul, atom.Ol:
		if depth == 0 {
			w.block()
		} else {
			w.line()
		}
		w.children(n, depth+1)
		if depth == 0 {
			w.block()
		}
	case atom.Li:
		w.line()
		w.raw(strings.Repeat("  ", max(depth-1, 0)) + "- ")
		w.atLineStart = true // the marker is not content: no space after it
		w.children(n, depth)
		w.line()
	case atom.Table:
		w.block()
		w.table(n)
		w.block()
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Blockquote, atom.Figure,
		atom.Figcaption, atom.Header, atom.Footer, atom.Aside, atom.Nav, atom.Dl, atom.Main, atom.Body, atom.Html:
		w.block()
		w.children(n, depth)
		w.block()
	case atom.Dt, atom.Dd, atom.Caption:
		w.line()
		w.children(n, depth)
		w.line()
	case atom.Img:
		// Alt text is not body text; it goes with the image.
		w.images = append(w.images, imageRef{src: attr(n, "src"), alt: attr(n, "alt"), at: w.b.Len()})
	case atom.Image:
		if n.Namespace == "svg" { // <svg><image xlink:href="…"/></svg>, the EPUB cover idiom
			w.images = append(w.images, imageRef{src: attr(n, "xlink:href"), at: w.b.Len()}) // or plain href
		}
	default:
		w.children(n, depth)
	}
}

// table writes each row as "| a | b |", cells' whitespace collapsed.
func (w *textWriter) table(n *html.Node) {
	var rows func(*html.Node)
	rows = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Tr:
				var cells []string
				for d := c.FirstChild; d != nil; d = d.NextSibling {
					if d.DataAtom == atom.Td || d.DataAtom == atom.Th {
						cells = append(cells, strings.ReplaceAll(strings.Join(strings.Fields(textOf(d)), " "), "|", "/"))
					}
				}
				if len(cells) > 0 {
					w.line()
					w.raw("| " + strings.Join(cells, " | ") + " |")
					w.line()
				}
			case atom.Caption:
				w.line()
				w.raw(strings.Join(strings.Fields(textOf(c)), " "))
				w.line()
			case atom.Table: // a nested table: its rows, flattened
				rows(c)
			default:
				rows(c)
			}
		}
	}
	rows(n)
}
