package pdfread

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
)

// xrefEntry says where an object is: at an offset, or inside an object
// stream.
type xrefEntry struct {
	off    int64 // file offset (kind 1)
	stream int   // object stream number (kind 2)
	index  int   // index inside it (kind 2)
	kind   byte  // 0 free, 1 in the file, 2 in an object stream
}

// File is a parsed PDF. It is safe for concurrent use.
type File struct {
	data    []byte
	xref    map[int]xrefEntry
	trailer Dict

	mu      sync.Mutex
	objs    map[int]Object     // resolved objects by number
	objStms map[int]*objStream // parsed object streams
	fonts   map[Ref]*font      // loaded fonts, by object
	decoded map[*Stream][]byte // decoded shared streams (forms, CMaps)

	contentBufs sync.Pool // *contentBuf, for pages read at the same time
}

type objStream struct {
	data []byte
	offs []int // offset of each object in data, after the header
	nums []int
}

// Open parses the file's structure: header, cross-reference data and
// trailer. When the cross-reference data is broken it rebuilds it by
// scanning for "n g obj".
func Open(data []byte) (*File, error) {
	if len(data) == 0 {
		return nil, malformed("the file is empty")
	}
	if !bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) {
		return nil, malformed("no %%PDF- header in the first KB")
	}
	f := &File{data: data, xref: map[int]xrefEntry{}, objs: map[int]Object{}, objStms: map[int]*objStream{},
		fonts: map[Ref]*font{}, decoded: map[*Stream][]byte{}}
	err := f.readXrefChain()
	if err != nil || f.trailer == nil || f.trailer["Root"] == nil {
		f.xref = map[int]xrefEntry{}
		f.trailer = nil
		if rerr := f.recover(); rerr != nil {
			if err == nil {
				err = rerr
			}
			return nil, fmt.Errorf("cross-reference table: %w (and the recovery scan failed: %v)", err, rerr)
		}
	}
	if _, ok := f.trailer["Encrypt"]; ok {
		return nil, unsupported("the file is encrypted")
	}
	return f, nil
}

// Trailer returns the trailer dictionary.
func (f *File) Trailer() Dict { return f.trailer }

func (f *File) readXrefChain() error {
	i := bytes.LastIndex(f.data[max(0, len(f.data)-2048):], []byte("startxref"))
	if i < 0 {
		return malformed("no startxref")
	}
	l := lexer{b: f.data, pos: max(0, len(f.data)-2048) + i + len("startxref")}
	tok, _, _ := l.next()
	off, ok := tok.(int64)
	if !ok {
		return malformed("startxref has no offset")
	}
	seen := map[int64]bool{}
	for off >= 0 {
		if seen[off] || len(seen) > 1000 {
			return malformed("cross-reference /Prev chain loops at offset %d", off)
		}
		seen[off] = true
		if off >= int64(len(f.data)) {
			return malformed("cross-reference offset %d beyond the end of the file", off)
		}
		trailer, err := f.readXref(off)
		if err != nil {
			return err
		}
		if f.trailer == nil {
			f.trailer = trailer
		}
		// A hybrid file's classic table points at a stream with more.
		if xs, ok := trailer["XRefStm"].(int64); ok && !seen[xs] && xs > 0 && xs < int64(len(f.data)) {
			seen[xs] = true
			if _, err := f.readXref(xs); err != nil {
				return err
			}
		}
		prev, ok := trailer["Prev"].(int64)
		if !ok {
			break
		}
		off = prev
	}
	return nil
}

// readXref reads one cross-reference section at off, table or stream,
// and adds the entries not already known (later sections win).
func (f *File) readXref(off int64) (Dict, error) {
	l := lexer{b: f.data, pos: int(off)}
	l.skipWhite()
	if bytes.HasPrefix(f.data[l.pos:], []byte("xref")) {
		l.pos += 4
		for {
			tok, ok, err := l.next()
			if err != nil || !ok {
				return nil, malformed("cross-reference table at %d ends early", off)
			}
			if k, isKw := tok.(keyword); isKw && k == "trailer" {
				p := parser{lex: l}
				t, err := p.object(0)
				if err != nil {
					return nil, fmt.Errorf("trailer at %d: %w", off, err)
				}
				d, ok := t.(Dict)
				if !ok {
					return nil, malformed("trailer at %d is not a dictionary", off)
				}
				return d, nil
			}
			start, ok1 := tok.(int64)
			tok, _, _ = l.next()
			count, ok2 := tok.(int64)
			if !ok1 || !ok2 || start < 0 || count < 0 || count > int64(len(f.data)-l.pos)/18+1 {
				return nil, malformed("bad cross-reference subsection at %d", l.pos)
			}
			for k := int64(0); k < count; k++ {
				t1, _, _ := l.next()
				t2, _, _ := l.next()
				t3, _, _ := l.next()
				o, ok1 := t1.(int64)
				_, ok2 := t2.(int64)
				kw, ok3 := t3.(keyword)
				if !ok1 || !ok2 || !ok3 {
					return nil, malformed("bad cross-reference entry at %d", l.pos)
				}
				n := int(start + k)
				if _, known := f.xref[n]; known {
					continue
				}
				if kw == "n" {
					f.xref[n] = xrefEntry{off: o, kind: 1}
				} else {
					f.xref[n] = xrefEntry{kind: 0}
				}
			}
		}
	}
	// A cross-reference stream: "n g obj << ... >> stream".
	o, err := f.parseAt(off, -1)
	if err != nil {
		return nil, fmt.Errorf("cross-reference stream at %d: %w", off, err)
	}
	s, ok := o.(*Stream)
	if !ok || s.Dict["Type"] != Name("XRef") {
		return nil, malformed("no cross-reference table or stream at offset %d", off)
	}
	data, err := f.decode(s)
	if err != nil {
		return nil, fmt.Errorf("cross-reference stream at %d: %w", off, err)
	}
	w, _ := s.Dict["W"].(Array)
	if len(w) != 3 {
		return nil, malformed("cross-reference stream at %d: /W is not three numbers", off)
	}
	var ws [3]int
	for i := range 3 {
		v, _ := w[i].(int64)
		if v < 0 || v > 8 {
			return nil, malformed("cross-reference stream at %d: bad /W", off)
		}
		ws[i] = int(v)
	}
	size, _ := s.Dict["Size"].(int64)
	index := Array{int64(0), size}
	if ix, ok := s.Dict["Index"].(Array); ok {
		index = ix
	}
	rowLen := ws[0] + ws[1] + ws[2]
	if rowLen == 0 {
		return nil, malformed("cross-reference stream at %d: empty rows", off)
	}
	pos := 0
	field := func(n int) int64 {
		var v int64
		for range n {
			v = v<<8 | int64(data[pos])
			pos++
		}
		return v
	}
	for i := 0; i+1 < len(index); i += 2 {
		start, _ := index[i].(int64)
		count, _ := index[i+1].(int64)
		for k := int64(0); k < count; k++ {
			if pos+rowLen > len(data) {
				return s.Dict, nil // short stream: keep what was read
			}
			typ := int64(1)
			if ws[0] > 0 {
				typ = field(ws[0])
			}
			a, b := field(ws[1]), field(ws[2])
			n := int(start + k)
			if _, known := f.xref[n]; known {
				continue
			}
			switch typ {
			case 0:
				f.xref[n] = xrefEntry{}
			case 1:
				f.xref[n] = xrefEntry{off: a, kind: 1}
			case 2:
				f.xref[n] = xrefEntry{stream: int(a), index: int(b), kind: 2}
			}
		}
	}
	return s.Dict, nil
}

// recover rebuilds the cross-reference table by scanning for objects,
// and takes the last trailer found (or a catalog object) as the trailer.
func (f *File) recover() error {
	d := f.data
	for i := 0; i < len(d); {
		j := bytes.Index(d[i:], []byte("obj"))
		if j < 0 {
			break
		}
		at := i + j
		i = at + 3
		// Walk back over "n g ".
		k := at - 1
		for k >= 0 && isWhite(d[k]) {
			k--
		}
		ge := k + 1
		for k >= 0 && d[k] >= '0' && d[k] <= '9' {
			k--
		}
		gs := k + 1
		if gs == ge {
			continue
		}
		for k >= 0 && isWhite(d[k]) {
			k--
		}
		ne := k + 1
		for k >= 0 && d[k] >= '0' && d[k] <= '9' {
			k--
		}
		ns := k + 1
		if ns == ne || ne == gs {
			continue
		}
		n, err := strconv.Atoi(string(d[ns:ne]))
		if err != nil || n <= 0 || n > 10_000_000 {
			continue
		}
		f.xref[n] = xrefEntry{off: int64(ns), kind: 1}
	}
	for i := 0; ; {
		j := bytes.Index(d[i:], []byte("trailer"))
		if j < 0 {
			break
		}
		p := parser{lex: lexer{b: d, pos: i + j + 7}}
		if t, err := p.object(0); err == nil {
			if td, ok := t.(Dict); ok && td["Root"] != nil {
				f.trailer = td
			}
		}
		i += j + 7
	}
	if f.trailer == nil {
		// Cross-reference streams carry the trailer keys; else find
		// the catalog.
		for n := range f.xref {
			o, err := f.Resolve(Ref{n, 0})
			if err != nil {
				continue
			}
			if s, ok := o.(*Stream); ok && s.Dict["Type"] == Name("XRef") && s.Dict["Root"] != nil {
				f.trailer = s.Dict
				break
			}
			if dd, ok := o.(Dict); ok && dd["Type"] == Name("Catalog") {
				f.trailer = Dict{"Root": Ref{n, 0}}
			}
		}
	}
	if len(f.xref) == 0 || f.trailer == nil {
		return malformed("no objects or no catalog found")
	}
	return nil
}

// parseAt parses "n g obj ... endobj" at off. want is the expected
// object number, or -1.
func (f *File) parseAt(off int64, want int) (Object, error) {
	return f.parseAtDepth(off, want, 0)
}

func (f *File) parseAtDepth(off int64, want int, depth int) (Object, error) {
	if off < 0 || off >= int64(len(f.data)) {
		return nil, malformed("object offset %d outside the file", off)
	}
	p := parser{lex: lexer{b: f.data, pos: int(off)}}
	t1, _, _ := p.lex.next()
	t2, _, _ := p.lex.next()
	t3, _, _ := p.lex.next()
	n, ok1 := t1.(int64)
	g, ok2 := t2.(int64)
	if kw, ok3 := t3.(keyword); !ok1 || !ok2 || !ok3 || kw != "obj" {
		return nil, malformed("no object header at offset %d", off)
	}
	if want >= 0 && int(n) != want {
		return nil, malformed("object %d expected at offset %d, found %d", want, off, n)
	}
	o, err := p.object(0)
	if err != nil {
		return nil, err
	}
	d, ok := o.(Dict)
	if !ok {
		return o, nil
	}
	save := p.lex.pos
	tok, _, _ := p.lex.next()
	if kw, ok := tok.(keyword); !ok || kw != "stream" {
		p.lex.pos = save
		return d, nil
	}
	pos := p.lex.pos
	if pos < len(f.data) && f.data[pos] == '\r' {
		pos++
	}
	if pos < len(f.data) && f.data[pos] == '\n' {
		pos++
	}
	length := int64(-1)
	switch v := d["Length"].(type) {
	case int64:
		length = v
	case Ref:
		// The length is usually a plain number in another object; a
		// length that is itself a stream whose length is a reference
		// could chain without end, so the chain is cut short.
		if v.Num != int(n) && depth < 4 {
			if e, ok := f.lookup(v.Num); ok && e.kind == 1 {
				if lo, err := f.parseAtDepth(e.off, v.Num, depth+1); err == nil {
					if li, ok := lo.(int64); ok {
						length = li
					}
				}
			}
		}
	}
	end := -1
	if length >= 0 && int64(pos)+length <= int64(len(f.data)) {
		end = pos + int(length)
		// Check that endstream follows; else the length is wrong.
		rest := f.data[end:min(len(f.data), end+32)]
		if !bytes.Contains(rest, []byte("endstream")) {
			end = -1
		}
	}
	if end < 0 {
		k := bytes.Index(f.data[pos:], []byte("endstream"))
		if k < 0 {
			return nil, malformed("object %d %d: stream without endstream", n, g)
		}
		end = pos + k
		for end > pos && (f.data[end-1] == '\n' || f.data[end-1] == '\r') {
			end--
		}
	}
	return &Stream{Dict: d, Raw: f.data[pos:end], ref: Ref{int(n), int(g)}}, nil
}

// Resolve follows references until it reaches a direct object. A
// missing object is null, as the PDF specification says.
func (f *File) Resolve(o Object) (Object, error) {
	for range maxRefChain {
		r, ok := o.(Ref)
		if !ok {
			return o, nil
		}
		var err error
		o, err = f.load(r.Num)
		if err != nil {
			return nil, fmt.Errorf("object %d: %w", r.Num, err)
		}
	}
	return nil, malformed("references chained more than %d deep", maxRefChain)
}

// R resolves o and ignores errors: a broken object reads as null.
func (f *File) R(o Object) Object {
	v, _ := f.Resolve(o)
	return v
}

func (f *File) dict(o Object) Dict {
	switch v := f.R(o).(type) {
	case Dict:
		return v
	case *Stream:
		return v.Dict
	}
	return nil
}

func (f *File) lookup(n int) (xrefEntry, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.xref[n]
	return e, ok
}

func (f *File) load(n int) (Object, error) {
	f.mu.Lock()
	if o, ok := f.objs[n]; ok {
		f.mu.Unlock()
		return o, nil
	}
	e, ok := f.xref[n]
	f.mu.Unlock()
	if !ok || e.kind == 0 {
		return nil, nil
	}
	var o Object
	var err error
	if e.kind == 1 {
		o, err = f.parseAt(e.off, n)
	} else {
		o, err = f.fromObjStream(e.stream, e.index, n)
	}
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.objs[n] = o
	f.mu.Unlock()
	return o, nil
}

func (f *File) fromObjStream(sn, index, n int) (Object, error) {
	f.mu.Lock()
	os, ok := f.objStms[sn]
	f.mu.Unlock()
	if !ok {
		e := f.xref[sn]
		if e.kind != 1 {
			return nil, malformed("object stream %d is not in the file", sn)
		}
		o, err := f.parseAt(e.off, sn)
		if err != nil {
			return nil, fmt.Errorf("object stream %d: %w", sn, err)
		}
		s, ok := o.(*Stream)
		if !ok {
			return nil, malformed("object stream %d is not a stream", sn)
		}
		data, err := f.decode(s)
		if err != nil {
			return nil, fmt.Errorf("object stream %d: %w", sn, err)
		}
		count, _ := s.Dict["N"].(int64)
		first, _ := s.Dict["First"].(int64)
		if count < 0 || count > 1_000_000 || first < 0 || first > int64(len(data)) {
			return nil, malformed("object stream %d: bad /N or /First", sn)
		}
		os = &objStream{data: data}
		l := lexer{b: data[:first]}
		for range count {
			t1, _, _ := l.next()
			t2, _, _ := l.next()
			a, ok1 := t1.(int64)
			b, ok2 := t2.(int64)
			if !ok1 || !ok2 || b < 0 || first+b > int64(len(data)) {
				return nil, malformed("object stream %d: bad header", sn)
			}
			os.nums = append(os.nums, int(a))
			os.offs = append(os.offs, int(first+b))
		}
		f.mu.Lock()
		f.objStms[sn] = os
		f.mu.Unlock()
	}
	if index < 0 || index >= len(os.offs) || os.nums[index] != n {
		// Some writers get the index wrong; look the number up.
		index = -1
		for i, m := range os.nums {
			if m == n {
				index = i
			}
		}
		if index < 0 {
			return nil, malformed("object %d is not in object stream %d", n, sn)
		}
	}
	p := parser{lex: lexer{b: os.data, pos: os.offs[index]}}
	return p.object(0)
}

// Info returns the document information dictionary's text entries.
func (f *File) Info() map[string]string {
	d := f.dict(f.trailer["Info"])
	if d == nil {
		return nil
	}
	m := map[string]string{}
	for k, v := range d {
		if s, ok := f.R(v).(String); ok {
			m[string(k)] = decodeTextString(s)
		}
	}
	return m
}
