package pdfread

import (
	"bytes"
	"compress/lzw"
	"compress/zlib"
	"encoding/ascii85"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// build writes a PDF with the given objects (numbered from 1) and a
// classic cross-reference table; extra goes into the trailer.
func build(objs []string, extra string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, extra, xref)
	return b.Bytes()
}

func stream(dict, data string) string {
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

func deflate(s string) string {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

const widths500 = "/FirstChar 32 /LastChar 126 /Widths [" + "500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500 500" + "]"

// onePage is a document whose page shows content with font /F1 (a
// simple font with WinAnsi and 500-unit widths) and any extra resources.
func onePage(content, extraObjs string) []string {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 600 800] >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> " + extraObjs + " >> /Contents 4 0 R >>",
		stream("", content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding " + widths500 + " >>",
	}
	return objs
}

func pageText(t *testing.T, data []byte) string {
	t.Helper()
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	pages, err := f.Pages(10)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no pages")
	}
	pg, err := f.ReadPage(pages[0], 10000)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range pg.Chars {
		b.WriteRune(c.R)
	}
	return b.String()
}

func TestText(t *testing.T) {
	tests := []struct {
		name, content, resources string
		extra                    []string
		want                     string
	}{
		{"Tj", "BT /F1 10 Tf 72 700 Td (Hello world) Tj ET", "", nil, "Hello world"},
		{"TJ kerning inserts a space", "BT /F1 10 Tf 72 700 Td [(Hello)-400(world)] TJ ET", "", nil, "Hello world"},
		{"TJ small kerning does not", "BT /F1 10 Tf 72 700 Td [(Hel)-20(lo)] TJ ET", "", nil, "Hello"},
		{"T* breaks the line", "BT /F1 10 Tf 12 TL 72 700 Td (one) Tj T* (two) Tj ET", "", nil, "one\ntwo"},
		{"quote operators", "BT /F1 10 Tf 12 TL 72 700 Td (one) Tj (two) ' 1 0 (three) \" ET", "", nil, "one\ntwo\nthree"},
		{"escapes", `BT /F1 10 Tf 72 700 Td (a\(b\)\101\\) Tj ET`, "", nil, `a(b)A\`},
		{"hex string", "BT /F1 10 Tf 72 700 Td <48 69> Tj ET", "", nil, "Hi"},
		{"hyphen at a line end", "BT /F1 10 Tf 12 TL 72 700 Td (inspira-) Tj T* (tion) Tj ET", "", nil, "inspira\u00ad\ntion"},
		{"form XObject with its own font",
			"q 1 0 0 1 10 10 cm /X1 Do Q", "/XObject << /X1 6 0 R >>",
			[]string{stream("/Type /XObject /Subtype /Form /BBox [0 0 600 800] /Resources << /Font << /F9 5 0 R >> >>", "BT /F9 10 Tf 72 700 Td (in a form) Tj ET")},
			"in a form"},
		{"differences and glyph names",
			"BT /F2 10 Tf 72 700 Td <01 02 41> Tj ET", "/Font << /F2 6 0 R >>",
			[]string{"<< /Type /Font /Subtype /Type1 /BaseFont /X /FirstChar 1 /LastChar 65 /Widths [" + strings.Repeat("500 ", 65) + "] /Encoding << /BaseEncoding /WinAnsiEncoding /Differences [1 /fi /uni00E9] >> >>"},
			"fiéA"},
		{"ToUnicode with bfrange arrays and Identity-H",
			"BT /F2 10 Tf 72 700 Td <0001 0002 0003 0010> Tj ET", "/Font << /F2 6 0 R >>",
			[]string{
				"<< /Type /Font /Subtype /Type0 /BaseFont /G /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 8 0 R >>",
				"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /G /DW 600 /W [1 [500 500] 3 16 400] >>",
				stream("", "/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <0000> <FFFF> endcodespacerange\n"+
					"1 beginbfchar <0010> <0021> endbfchar 2 beginbfrange <0001> <0002> [<0048> <0069>] <0003> <0003> <00200041> endbfrange endcmap"),
			},
			"Hi A!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The page's resources: /F1 always, plus the case's.
			objs := onePage(tt.content, tt.resources)
			if strings.Contains(tt.resources, "/Font") {
				objs[2] = strings.Replace(objs[2], "/Font << /F1 5 0 R >> "+tt.resources, strings.TrimSuffix(tt.resources, ">>")+" /F1 5 0 R >>", 1)
			}
			objs = append(objs, tt.extra...)
			if got := pageText(t, build(objs, "")); got != tt.want {
				t.Errorf("text %q, want %q", got, tt.want)
			}
		})
	}
}

// TestBoxes checks the loose box PDFium gives: origin to advance, the
// font's ascent to descent scaled to the font size, through Tm and cm.
func TestBoxes(t *testing.T) {
	objs := onePage("q 2 0 0 2 0 0 cm BT /F1 10 Tf 1 0 0 1 36 350 Tm (AB) Tj ET Q", "")
	objs[4] = strings.Replace(objs[4], ">>", "/FontDescriptor 6 0 R >>", 1)
	objs = append(objs, "<< /Type /FontDescriptor /Ascent 800 /Descent -200 /StemV 130 /Flags 32 >>")
	f, err := Open(build(objs, ""))
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := f.Pages(1)
	pg, err := f.ReadPage(pages[0], 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Chars) != 2 {
		t.Fatalf("chars %+v", pg.Chars)
	}
	b := pg.Chars[1] // B: origin x = 2*(36+5), width 2*5, baseline 700
	want := Char{R: 'B', X0: 82, X1: 92, Y0: 700 - 4, Y1: 700 + 16, Size: 10, Weight: 650}
	if b != want {
		t.Errorf("B = %+v, want %+v", b, want)
	}
	if pg.Width != 600 || pg.Height != 800 {
		t.Errorf("page %vx%v, want 600x800 (inherited MediaBox)", pg.Width, pg.Height)
	}
}

func TestFilters(t *testing.T) {
	var a85 bytes.Buffer
	w := ascii85.NewEncoder(&a85)
	w.Write([]byte("BT /F1 10 Tf 72 700 Td (ascii85) Tj ET"))
	w.Close()
	// PNG "Up" predictor over rows of 3 bytes: each row adds the one above.
	png := deflate("\x02abc\x02\x01\x01\x01")
	tests := []struct {
		name, dict, data, want string
	}{
		{"flate", "/Filter /FlateDecode", deflate("hello"), "hello"},
		{"flate with PNG predictor", "/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 3 >>", png, "abcbcd"},
		{"ASCIIHex", "/Filter /ASCIIHexDecode", "68 65 6c6C6f>", "hello"},
		{"ASCIIHex odd digit", "/Filter /AHx", "686>", "h`"},
		{"ASCII85", "/Filter /ASCII85Decode", a85.String() + "~>", "BT /F1 10 Tf 72 700 Td (ascii85) Tj ET"},
		{"RunLength", "/Filter /RunLengthDecode", "\x02abc\xfdz\x80", "abczzzz"},
		{"LZW", "/Filter /LZWDecode", "\x80\x0b\x60\x50\x22\x0c\x0c\x85\x01", "-----A---B"},
		{"chain", "/Filter [/ASCIIHexDecode /FlateDecode]", fmt.Sprintf("%x>", deflate("chained")), "chained"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>", stream(tt.dict, tt.data)}
			f, err := Open(build(objs, ""))
			if err != nil {
				t.Fatal(err)
			}
			s, ok := f.R(Ref{3, 0}).(*Stream)
			if !ok {
				t.Fatal("object 3 is not a stream")
			}
			got, err := f.Decode(s)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("decoded %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("LZW past 511 codes, EarlyChange 0", func(t *testing.T) {
		var text strings.Builder
		for i := range 3000 {
			fmt.Fprintf(&text, "%d ", i*7919%1000)
		}
		var enc bytes.Buffer
		w := lzw.NewWriter(&enc, lzw.MSB, 8) // Go's LZW changes width late
		w.Write([]byte(text.String()))
		w.Close()
		got, err := lzwDecode(enc.Bytes(), 0)
		if err != nil || string(got) != text.String() {
			t.Errorf("decoded %d bytes (err %v), want %d", len(got), err, text.Len())
		}
	})
	t.Run("image filters are unsupported", func(t *testing.T) {
		objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>", stream("/Filter /DCTDecode", "x")}
		f, _ := Open(build(objs, ""))
		_, err := f.Decode(f.R(Ref{3, 0}).(*Stream))
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "object 3") {
			t.Errorf("err = %v, want ErrUnsupported naming object 3", err)
		}
	})
}

// xrefStreamPDF writes the onePage document with objects 3-5 in an
// object stream and a cross-reference stream, optionally with an
// update section chained by /Prev that replaces the content.
func xrefStreamPDF(update bool) []byte {
	objs := onePage("BT /F1 10 Tf 72 700 Td (from an object stream) Tj ET", "")
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	offs := map[int]int{}
	// Objects 1, 2, 4 directly; 3 and 5 inside object stream 6.
	for _, n := range []int{1, 2, 4} {
		offs[n] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, objs[n-1])
	}
	body := objs[2] + "\n" + objs[4]
	header := fmt.Sprintf("3 0 5 %d ", len(objs[2])+1)
	offs[6] = b.Len()
	fmt.Fprintf(&b, "6 0 obj\n%s\nendobj\n", stream(fmt.Sprintf("/Type /ObjStm /N 2 /First %d /Filter /FlateDecode", len(header)), deflate(header+body)))
	row := func(typ, a, c int) []byte {
		return []byte{byte(typ), byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a), byte(c)}
	}
	var rows []byte
	rows = append(rows, row(0, 0, 255)...)
	rows = append(rows, row(1, offs[1], 0)...)
	rows = append(rows, row(1, offs[2], 0)...)
	rows = append(rows, row(2, 6, 0)...)
	rows = append(rows, row(1, offs[4], 0)...)
	rows = append(rows, row(2, 6, 1)...)
	rows = append(rows, row(1, offs[6], 0)...)
	xref := b.Len()
	rows = append(rows, row(1, xref, 0)...)
	fmt.Fprintf(&b, "7 0 obj\n%s\nendobj\n", stream("/Type /XRef /Size 8 /W [1 4 1] /Root 1 0 R /Filter /FlateDecode", deflate(string(rows))))
	last := xref
	if update {
		off8 := b.Len()
		fmt.Fprintf(&b, "8 0 obj\n%s\nendobj\n", stream("", "BT /F1 10 Tf 72 700 Td (updated) Tj ET"))
		off3 := b.Len()
		fmt.Fprintf(&b, "3 0 obj\n%s\nendobj\n", "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 8 0 R >>")
		last = b.Len()
		fmt.Fprintf(&b, "xref\n3 1\n%010d 00000 n \n8 1\n%010d 00000 n \ntrailer\n<< /Size 9 /Root 1 0 R /Prev %d >>\n", off3, off8, xref)
	}
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", last)
	return b.Bytes()
}

func TestXrefStreamsAndUpdates(t *testing.T) {
	if got := pageText(t, xrefStreamPDF(false)); got != "from an object stream" {
		t.Errorf("text %q", got)
	}
	if got := pageText(t, xrefStreamPDF(true)); got != "updated" {
		t.Errorf("after an update chained by /Prev: text %q, want %q", got, "updated")
	}
}

func TestRecovery(t *testing.T) {
	good := build(onePage("BT /F1 10 Tf 72 700 Td (recovered) Tj ET", ""), "")
	tests := []struct {
		name string
		data []byte
	}{
		{"startxref points nowhere", bytes.Replace(good, []byte("startxref\n"), []byte("startxref\n9"), 1)},
		{"no startxref", good[:bytes.LastIndex(good, []byte("startxref"))]},
		{"offsets shifted", append([]byte("%PDF-1.4\n% junk that moves every object\n"), good[9:]...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pageText(t, tt.data); got != "recovered" {
				t.Errorf("text %q", got)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	selfForm := onePage("/X1 Do", "/XObject << /X1 6 0 R >>")
	selfForm = append(selfForm, stream("/Type /XObject /Subtype /Form /Resources << /XObject << /X1 6 0 R >> >>", "/X1 Do"))
	unmapped := onePage("BT /F2 10 Tf <0009> Tj ET", "")
	unmapped[2] = strings.Replace(unmapped[2], "/F1 5 0 R", "/F1 5 0 R /F2 6 0 R", 1)
	unmapped = append(unmapped, "<< /Type /Font /Subtype /Type0 /BaseFont /G /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 8 0 R >>",
		"<< /Type /Font /Subtype /CIDFontType2 >>", stream("", "1 beginbfchar <0001> <0041> endbfchar"))
	builtinEnc := onePage("BT /F1 10 Tf (A) Tj ET", "")
	builtinEnc[4] = "<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+Custom " + widths500 + " /FontDescriptor 6 0 R >>"
	builtinEnc = append(builtinEnc, "<< /Type /FontDescriptor /Flags 32 /FontFile3 7 0 R >>", stream("/Subtype /Type1C", "not read"))
	tests := []struct {
		name string
		data []byte
		open bool   // the error comes from Open
		want string // in the error
		is   error
	}{
		{"empty", nil, true, "empty", ErrMalformed},
		{"not a PDF", []byte("hello, world"), true, "%PDF-", ErrMalformed},
		{"encrypted", build(onePage("", ""), "/Encrypt << /Filter /Standard >> "), true, "encrypted", ErrUnsupported},
		{"nesting too deep", build(onePage("BT /F1 10 Tf 72 700 Td "+deep+" TJ ET", ""), ""), false, "", nil},
		{"form draws itself", build(selfForm, ""), false, "nested deeper", ErrMalformed},
		{"font missing", build(onePage("BT /F7 10 Tf (x) Tj ET", ""), ""), false, "/F7", ErrUnsupported},
		{"unmapped code", build(unmapped, ""), false, "code 0x9", ErrUnsupported},
		{"embedded font's own encoding", build(builtinEnc, ""), false, "code 0x41", ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Open(tt.data)
			if !tt.open && err == nil {
				var pages []PageRef
				pages, err = f.Pages(10)
				if err == nil {
					_, err = f.ReadPage(pages[0], 1000)
				}
			}
			if tt.is == nil {
				if err != nil {
					t.Errorf("err = %v, want none (a syntax error ends the content, as in PDFium)", err)
				}
				return
			}
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %v mentioning %q", err, tt.is, tt.want)
			}
		})
	}
}

func TestFastNumber(t *testing.T) {
	for _, w := range []string{"0", "12", "-3", "+4", "3.25", "-.5", "7.", "--2", "1e5", "", "-", ".", "1.2.3", "12345678901234"} {
		want, wantOK := parseNumber([]byte(w))
		got, ok := fastNumber([]byte(w))
		wf, _ := num(want)
		if ok != wantOK || ok && got != wf && math.Abs(got-wf) > 1e-9*math.Abs(wf) {
			t.Errorf("fastNumber(%q) = %v, %v; parseNumber gives %v, %v", w, got, ok, want, wantOK)
		}
	}
}

// TestOutline reads bookmarks with each kind of target: a destination
// array, a GoTo action, a name in the catalog's /Dests, a string in the
// /Names tree, nested entries, and a /Next loop that must end.
func TestOutline(t *testing.T) {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R /Outlines 5 0 R /Dests << /second [4 0 R /Fit] >> /Names << /Dests 11 0 R >> >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 600 800] >>",
		"<< /Type /Page /Parent 2 0 R >>",
		"<< /Type /Page /Parent 2 0 R >>",
		"<< /Type /Outlines /First 6 0 R >>",
		"<< /Title (Array) /Dest [4 0 R /XYZ 0 0 0] /Next 7 0 R /First 10 0 R >>",
		"<< /Title <FEFF00C90074006500200047006F0054006F> /A << /S /GoTo /D [3 0 R /Fit] >> /Next 8 0 R >>",
		"<< /Title (Named) /Dest /second /Next 9 0 R >>",
		"<< /Title (In the tree) /Dest (chap1) /Next 6 0 R >>",
		"<< /Title (  Child   entry ) /Dest [3 0 R /Fit] >>",
		"<< /Kids [12 0 R] >>",
		"<< /Names [(chap0) [4 0 R /Fit] (chap1) << /D [3 0 R /Fit] >>] >>",
	}
	f, err := Open(build(objs, ""))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := f.Pages(10)
	if err != nil {
		t.Fatal(err)
	}
	got := f.Outline(pages)
	want := []Bookmark{
		{Title: "Array", Page: 1, Children: []Bookmark{{Title: "Child entry", Page: 0}}},
		{Title: "Éte GoTo", Page: 0},
		{Title: "Named", Page: 1},
		{Title: "In the tree", Page: 0},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outline\n %v\nwant\n %v", got, want)
	}
}

// TestImages: the image XObjects a page draws, in order, forms included,
// with their dictionaries' facts and where they land.
func TestImages(t *testing.T) {
	objs := onePage("q 20 0 0 10 5 5 cm /I1 Do Q /I2 Do 1 0 0 1 100 200 cm /Fm Do BI /W 1 /H 1 /CS /G /BPC 8 ID x EI",
		"/XObject << /I1 6 0 R /I2 7 0 R /Fm 9 0 R >> /ColorSpace << /CS 8 0 R >>")
	objs = append(objs,
		stream("/Type /XObject /Subtype /Image /Width 2 /Height 2 /BitsPerComponent 8 /ColorSpace [/Indexed /DeviceRGB 1 <ff000000ff00>] /Decode [0 255]", "\x00\x01\x01\x00"),
		stream("/Type /XObject /Subtype /Image /Width 2 /Height 1 /BitsPerComponent 8 /ColorSpace /CS /Filter [/ASCIIHexDecode] /SMask 6 0 R", "0a0b0c0d0e0f>"),
		"[/ICCBased 10 0 R]",
		stream("/Type /XObject /Subtype /Form /Matrix [2 0 0 2 0 0] /Resources << /XObject << /J 11 0 R >> >>", "/J Do"),
		stream("/N 3", ""),
		stream("/Type /XObject /Subtype /Image /Width 3 /Height 4 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /DCTDecode /ImageMask false", "\xff\xd8jpeg"),
	)
	f, err := Open(build(objs, ""))
	if err != nil {
		t.Fatal(err)
	}
	refs, err := f.Pages(10)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := f.ReadPage(refs[0], 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Images) != 3 || pg.InlineImages != 1 {
		t.Fatalf("%d images, %d inline, want 3 and 1: %v", len(pg.Images), pg.InlineImages, pg.Images)
	}
	a, b, c := &pg.Images[0], &pg.Images[1], &pg.Images[2]
	if a.Width != 2 || a.Height != 2 || a.BPC != 8 || a.ColorSpace != "Indexed" || a.Base != "DeviceRGB" || a.BaseComponents != 3 || a.HiVal != 1 ||
		string(a.Palette) != "\xff\x00\x00\x00\xff\x00" || len(a.Decode) != 2 || a.Decode[1] != 255 || a.SMask || a.Components != 1 {
		t.Errorf("indexed image: %+v", *a)
	}
	if x0, y0, x1, y1 := a.Box(); x0 != 5 || y0 != 5 || x1 != 25 || y1 != 15 {
		t.Errorf("indexed image box %v %v %v %v, want 5 5 25 15", x0, y0, x1, y1)
	}
	if b.ColorSpace != "DeviceRGB" || b.Components != 3 || !b.SMask || len(b.Filters) != 1 || b.Filters[0] != "ASCIIHexDecode" || b.CTM != [6]float64{1, 0, 0, 1, 0, 0} {
		t.Errorf("hex image: %+v", *b)
	}
	if data, err := f.DecodeImage(b); err != nil || string(data) != "\x0a\x0b\x0c\x0d\x0e\x0f" {
		t.Errorf("hex image decodes to %q, %v", data, err)
	}
	if c.FormDepth != 1 || c.CTM != [6]float64{2, 0, 0, 2, 100, 200} || c.ColorSpace != "DeviceGray" || c.Filters[0] != "DCTDecode" || c.ImageMask || string(c.Raw()) != "\xff\xd8jpeg" {
		t.Errorf("image in a form: %+v", *c)
	}
	if _, err := f.DecodeImage(c); !errors.Is(err, ErrUnsupported) {
		t.Errorf("decoding DCT natively: %v, want ErrUnsupported", err)
	}
}

// TestReadPageInto reads a page into an array left over from a longer
// page: the characters are the page's alone, in that array.
func TestReadPageInto(t *testing.T) {
	f, err := Open(build(onePage("BT /F1 10 Tf 72 700 Td (Hello world) Tj ET", ""), ""))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := f.Pages(10)
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.ReadPage(pages[0], 10000)
	if err != nil {
		t.Fatal(err)
	}
	old := make([]Char, 40, 64)
	for i := range old {
		old[i] = Char{R: 'x', X0: 1, X1: 2, Size: 99}
	}
	got, err := f.ReadPageInto(pages[0], 10000, old)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Chars) != len(want.Chars) {
		t.Fatalf("%d characters, want %d", len(got.Chars), len(want.Chars))
	}
	for i := range want.Chars {
		if got.Chars[i] != want.Chars[i] {
			t.Errorf("character %d is %+v, want %+v", i, got.Chars[i], want.Chars[i])
		}
	}
	if &got.Chars[0] != &old[0] {
		t.Error("the characters are not in the array passed")
	}
}
