package pdf

import (
	"strings"

	"github.com/hearth-rpg/hearth/ingest"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"
)

// Limits on the bookmark walk: a damaged outline may loop.
const (
	maxBookmarks     = 20_000
	maxBookmarkDepth = 16
)

// outline reads the PDF's bookmarks as a section tree. Pages are 1-based;
// a bookmark whose target cannot be resolved gets page 0.
func (w *worker) outline(pages int) []*ingest.Section {
	budget := maxBookmarks
	deep := false
	var walk func(parent *references.FPDF_BOOKMARK, level int) []*ingest.Section
	walk = func(parent *references.FPDF_BOOKMARK, level int) []*ingest.Section {
		if level > maxBookmarkDepth {
			deep = true
			return nil
		}
		first, err := w.inst.FPDFBookmark_GetFirstChild(&requests.FPDFBookmark_GetFirstChild{Document: w.doc, Bookmark: parent})
		if err != nil || first.Bookmark == nil {
			return nil
		}
		var out []*ingest.Section
		for bm := first.Bookmark; bm != nil && budget > 0; budget-- {
			s := &ingest.Section{Level: level, Page: w.bookmarkPage(*bm, pages)}
			if t, err := w.inst.FPDFBookmark_GetTitle(&requests.FPDFBookmark_GetTitle{Bookmark: *bm}); err == nil {
				s.Title = strings.Join(strings.Fields(t.Title), " ")
			}
			cur := *bm
			s.Children = walk(&cur, level+1)
			out = append(out, s)
			next, err := w.inst.FPDFBookmark_GetNextSibling(&requests.FPDFBookmark_GetNextSibling{Document: w.doc, Bookmark: cur})
			if err != nil {
				break
			}
			bm = next.Bookmark
		}
		return out
	}
	tree := walk(nil, 1)
	if budget > 0 && !deep {
		w.fillPages(tree, pages)
	}
	return tree
}

// fillPages sets the sections' target pages from GetBookmarks, which
// resolves destinations correctly where go-pdfium's FPDFBookmark_GetDest
// (v1.19.0, webassembly) does not. GetBookmarks recurses without limit,
// so it is called only once the bounded walk has shown the tree is
// finite. Both walks are preorder, so sections and bookmarks zip.
func (w *worker) fillPages(tree []*ingest.Section, pages int) {
	res, err := w.inst.GetBookmarks(&requests.GetBookmarks{Document: w.doc})
	if err != nil {
		return
	}
	var flat []int
	var collect func(bs []responses.GetBookmarksBookmark)
	collect = func(bs []responses.GetBookmarksBookmark) {
		for _, b := range bs {
			p := -1
			switch {
			case b.DestInfo != nil:
				p = b.DestInfo.PageIndex
			case b.ActionInfo != nil && b.ActionInfo.DestInfo != nil:
				p = b.ActionInfo.DestInfo.PageIndex
			}
			flat = append(flat, p)
			collect(b.Children)
		}
	}
	collect(res.Bookmarks)
	i := 0
	var fill func(ss []*ingest.Section)
	fill = func(ss []*ingest.Section) {
		for _, s := range ss {
			if i < len(flat) && s.Page == 0 && flat[i] >= 0 && flat[i] < pages {
				s.Page = flat[i] + 1
			}
			i++
			fill(s.Children)
		}
	}
	fill(tree)
}

// bookmarkPage resolves a bookmark's target page through its GoTo
// action. Its own destination is left to fillPages: go-pdfium's
// FPDFBookmark_GetDest (v1.19.0, webassembly) calls PDFium's
// FPDFBookmark_Find instead, which searches the whole tree for a title
// on every call (seconds on a book with two thousand bookmarks) and
// resolves nothing.
func (w *worker) bookmarkPage(bm references.FPDF_BOOKMARK, pages int) int {
	var dest *references.FPDF_DEST
	if a, err := w.inst.FPDFBookmark_GetAction(&requests.FPDFBookmark_GetAction{Bookmark: bm}); err == nil && a.Action != nil {
		if d, err := w.inst.FPDFAction_GetDest(&requests.FPDFAction_GetDest{Document: w.doc, Action: *a.Action}); err == nil && d.Dest != nil {
			dest = d.Dest
		}
	}
	if dest == nil {
		return 0
	}
	idx, err := w.inst.FPDFDest_GetDestPageIndex(&requests.FPDFDest_GetDestPageIndex{Document: w.doc, Dest: *dest})
	if err != nil || idx.Index < 0 || idx.Index >= pages {
		return 0
	}
	return idx.Index + 1
}
