package epub

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/hearth-rpg/hearth/ingest"
)

// maxDepth caps outline nesting: deeper entries hang from the last level.
const maxDepth = 32

// ncx is an EPUB 2 toc.ncx.
type ncx struct {
	Points []navPoint `xml:"navMap>navPoint"`
}

type navPoint struct {
	Label   string `xml:"navLabel>text"`
	Content struct {
		Src string `xml:"src,attr"`
	} `xml:"content"`
	Points []navPoint `xml:"navPoint"`
}

// pageOf maps an href in a navigation file to the 1-based spine page it
// points into; 0 when it points outside the spine.
type pageOf func(href string) int

func ncxOutline(b []byte, name string, page pageOf) ([]*ingest.Section, error) {
	var n ncx
	if err := decodeXML(name, b, &n); err != nil {
		return nil, err
	}
	var conv func(ps []navPoint, level int) []*ingest.Section
	conv = func(ps []navPoint, level int) []*ingest.Section {
		var out []*ingest.Section
		for _, p := range ps {
			title := strings.Join(strings.Fields(p.Label), " ")
			kids := conv(p.Points, min(level+1, maxDepth))
			if title == "" { // an unlabelled point (a title page): lift its children
				out = append(out, kids...)
				continue
			}
			out = append(out, &ingest.Section{Title: title, Level: level, Page: page(p.Content.Src), Children: kids})
		}
		return out
	}
	return conv(n.Points, 1), nil
}

// navOutline reads an EPUB 3 navigation document: the <nav epub:type="toc">
// list, or failing that the first list in the body.
func navOutline(b []byte, page pageOf) []*ingest.Section {
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	var toc, firstList *html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		if toc != nil {
			return
		}
		if n.Type == html.ElementNode {
			if n.DataAtom == atom.Nav && strings.Contains(attr(n, "epub:type")+attr(n, "type")+attr(n, "role"), "toc") {
				toc = n
				return
			}
			if firstList == nil && n.DataAtom == atom.Ol {
				firstList = n
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if toc == nil {
		toc = firstList
	}
	if toc == nil {
		return nil
	}
	var list func(n *html.Node, level int) []*ingest.Section
	list = func(n *html.Node, level int) []*ingest.Section {
		var out []*ingest.Section
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type != html.ElementNode:
			case c.DataAtom == atom.Li:
				var title, href string
				var kids []*ingest.Section
				for d := c.FirstChild; d != nil; d = d.NextSibling {
					switch d.DataAtom {
					case atom.A, atom.Span:
						if title == "" {
							title, href = strings.Join(strings.Fields(textOf(d)), " "), attr(d, "href")
						}
					case atom.Ol, atom.Ul:
						kids = append(kids, list(d, min(level+1, maxDepth))...)
					}
				}
				if title == "" {
					out = append(out, kids...)
					continue
				}
				out = append(out, &ingest.Section{Title: title, Level: level, Page: page(href), Children: kids})
			default: // the <nav> itself, or an <ol> inside it
				out = append(out, list(c, level)...)
			}
		}
		return out
	}
	return list(toc, 1)
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		name := a.Key
		if a.Namespace != "" {
			name = a.Namespace + ":" + a.Key
		}
		if name == key || a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
