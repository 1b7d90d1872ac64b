package pdfread

import "strings"

// Bookmark is an entry of the document outline.
type Bookmark struct {
	Title    string
	Page     int // 0-based page index, -1 when the target is unknown
	Children []Bookmark
}

// Outline limits: a damaged outline may loop or nest without end.
const (
	maxBookmarks      = 20_000
	maxBookmarkDepth  = 16
	maxNameTreeVisits = 100_000
)

// Outline reads the bookmarks: /Outlines from /First along /Next, each
// target from /Dest or a GoTo action's /D, named destinations through
// the catalog's /Dests dictionary or its /Names /Dests tree. pages is
// the list from Pages, to turn page objects into indices.
func (f *File) Outline(pages []PageRef) []Bookmark {
	cat := f.dict(f.trailer["Root"])
	root := f.dict(cat["Outlines"])
	if root == nil {
		return nil
	}
	index := make(map[Ref]int, len(pages))
	for i, p := range pages {
		if p.Ref != (Ref{}) {
			index[p.Ref] = i
		}
	}
	o := &outliner{f: f, cat: cat, index: index, budget: maxBookmarks, seen: map[Ref]bool{}}
	return o.walk(root["First"], 1)
}

type outliner struct {
	f      *File
	cat    Dict
	index  map[Ref]int
	budget int
	seen   map[Ref]bool
	names  map[string]Object // the /Names /Dests tree, flattened once
}

func (o *outliner) walk(first Object, level int) []Bookmark {
	if level > maxBookmarkDepth {
		return nil
	}
	var out []Bookmark
	for item := first; item != nil && o.budget > 0; o.budget-- {
		r, isRef := item.(Ref)
		if isRef {
			if o.seen[r] {
				break // a loop
			}
			o.seen[r] = true
		}
		d := o.f.dict(item)
		if d == nil {
			break
		}
		title, _ := o.f.R(d["Title"]).(String)
		b := Bookmark{Title: strings.Join(strings.Fields(decodeTextString(title)), " "), Page: -1}
		dest := d["Dest"]
		if dest == nil {
			if a := o.f.dict(d["A"]); a != nil {
				if s, _ := o.f.R(a["S"]).(Name); s == "GoTo" {
					dest = a["D"]
				}
			}
		}
		b.Page = o.destPage(dest, 0)
		b.Children = o.walk(d["First"], level+1)
		out = append(out, b)
		item = d["Next"]
	}
	return out
}

// destPage resolves a destination to a page index, or -1.
func (o *outliner) destPage(dest Object, depth int) int {
	if depth > 4 {
		return -1
	}
	switch v := o.f.R(dest).(type) {
	case Array:
		if len(v) == 0 {
			return -1
		}
		switch p := v[0].(type) {
		case Ref:
			if i, ok := o.index[p]; ok {
				return i
			}
		case int64:
			// A page number: used by remote GoTo, some writers here too.
			if p >= 0 && int(p) < len(o.index) {
				return int(p)
			}
		}
		return -1
	case Dict:
		return o.destPage(v["D"], depth+1)
	case Name:
		if d := o.f.dict(o.cat["Dests"]); d != nil {
			return o.destPage(d[v], depth+1)
		}
	case String:
		if o.names == nil {
			o.names = map[string]Object{}
			visits := 0
			if n := o.f.dict(o.cat["Names"]); n != nil {
				o.flatten(n["Dests"], 0, &visits)
			}
		}
		return o.destPage(o.names[string(v)], depth+1)
	}
	return -1
}

// flatten collects a name tree's leaves.
func (o *outliner) flatten(node Object, depth int, visits *int) {
	*visits++
	if depth > maxDepth || *visits > maxNameTreeVisits {
		return
	}
	d := o.f.dict(node)
	if d == nil {
		return
	}
	if names, ok := o.f.R(d["Names"]).(Array); ok {
		for i := 0; i+1 < len(names); i += 2 {
			if k, ok := o.f.R(names[i]).(String); ok {
				o.names[string(k)] = names[i+1]
			}
		}
	}
	if kids, ok := o.f.R(d["Kids"]).(Array); ok {
		for _, k := range kids {
			o.flatten(k, depth+1, visits)
		}
	}
}
