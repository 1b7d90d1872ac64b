package epub

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/ingest"
)

const srdEPUB = "../../../shared/testdata/epub/mdsrd5.epub"

func readSRD(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(srdEPUB)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s is absent: the shared test data is not checked out beside the repository", srdEPUB)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSRD(t *testing.T) {
	data := readSRD(t)
	var calls, lastDone, lastTotal int
	doc, err := New(Limits{}).Extract(context.Background(), data, func(done, total int) {
		calls++
		lastDone, lastTotal = done, total
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Pages) != 114 {
		t.Errorf("pages = %d, want 114 (one per spine item)", len(doc.Pages))
	}
	if calls != len(doc.Pages) || lastDone != lastTotal || lastTotal != len(doc.Pages) {
		t.Errorf("progress: %d calls, last %d/%d", calls, lastDone, lastTotal)
	}
	for i, p := range doc.Pages {
		if p.Number != i+1 {
			t.Fatalf("page %d numbered %d", i+1, p.Number)
		}
	}
	if doc.Title != "The Markdown SRD5" {
		t.Errorf("title = %q", doc.Title)
	}
	if d := doc.Depth(); d < 3 {
		t.Errorf("outline depth = %d, want at least 3", d)
	}
	found := map[string]int{}
	doc.Walk(func(s *ingest.Section) {
		if _, ok := found[s.Title]; !ok {
			found[s.Title] = s.Page
		}
	})
	for _, title := range []string{"Legal Information", "Races", "Racial Traits", "Dwarf", "Halfling Traits"} {
		if p, ok := found[title]; !ok || p == 0 {
			t.Errorf("outline lacks %q with a page (got page %d, present %v)", title, p, ok)
		}
	}
	if doc.Outline[0].Title != "Legal Information" || doc.Outline[0].Page != 3 {
		t.Errorf("first outline entry = %+v, want Legal Information on page 3 (after the title page and the nav document)", *doc.Outline[0])
	}
	// A known sentence on the page its section starts on.
	halfling := found["Halfling Traits"]
	const sentence = "Your halfling character has a number of traits in common with all other halflings."
	if halfling == 0 {
		t.Fatal("no Halfling Traits section")
	}
	if !strings.Contains(doc.Pages[halfling-1].Text, sentence) {
		t.Errorf("page %d lacks %q", halfling, sentence)
	}
	if !strings.Contains(doc.Pages[halfling-1].Text, "## Halfling\n") {
		t.Errorf("page %d lacks its heading as a Markdown line:\n%.300s", halfling, doc.Pages[halfling-1].Text)
	}
	var rows int
	for _, p := range doc.Pages {
		for _, l := range strings.Split(p.Text, "\n") {
			if strings.HasPrefix(l, "| ") && strings.HasSuffix(l, " |") {
				rows++
			}
		}
	}
	if rows < 100 {
		t.Errorf("%d table rows kept as text, want many", rows)
	}
}

func TestXHTML(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"heading and paragraph", `<h2>Dash</h2><p>When you take   the <em>Dash</em> action,
you gain extra movement.</p>`, "## Dash\n\nWhen you take the Dash action, you gain extra movement."},
		{"lists", `<ul><li>one</li><li>two<ul><li>inner</li></ul></li></ul>`, "- one\n- two\n  - inner"},
		{"table", `<table><tr><th>Level</th><th>Bonus</th></tr><tr><td>1</td><td>+2</td></tr></table>`, "| Level | Bonus |\n| 1 | +2 |"},
		{"script dropped", `<p>a</p><script>evil()</script><p>b</p>`, "a\n\nb"},
		{"br", `<p>line one<br/>line two</p>`, "line one\nline two"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := pageText([]byte("<html><body>" + tt.in + "</body></html>"))
			if got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// book builds an EPUB from name → content, in order.
func book(t testing.TB, files ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.Create(f[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(f[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const containerXML = `<?xml version="1.0"?><container><rootfiles><rootfile full-path="OEBPS/content.opf"/></rootfiles></container>`

func opfXML(items, spine string) string {
	return `<?xml version="1.0"?><package version="3.0"><metadata><title>Tiny</title></metadata><manifest>` + items +
		`</manifest><spine>` + spine + `</spine></package>`
}

// tinyEPUB3 is a two-chapter EPUB 3 with a nav document.
func tinyEPUB3(t testing.TB) []byte {
	return book(t,
		[2]string{"mimetype", "application/epub+zip"},
		[2]string{"META-INF/container.xml", containerXML},
		[2]string{"OEBPS/content.opf", opfXML(
			`<item id="nav" href="nav.xhtml" properties="nav" media-type="application/xhtml+xml"/>
			 <item id="c1" href="text/c1.xhtml" media-type="application/xhtml+xml"/>
			 <item id="c2" href="text/c%202.xhtml" media-type="application/xhtml+xml"/>`,
			`<itemref idref="c1"/><itemref idref="c2"/>`)},
		[2]string{"OEBPS/nav.xhtml", `<html><body><nav epub:type="toc"><ol>
			<li><a href="text/c1.xhtml">Chapter One</a><ol><li><a href="text/c1.xhtml#s">Sub</a></li></ol></li>
			<li><a href="text/c%202.xhtml">Chapter Two</a></li></ol></nav></body></html>`},
		[2]string{"OEBPS/text/c1.xhtml", `<html><body><h1>Chapter One</h1><p>The first words.</p><h2 id="s">Sub</h2><p>More.</p></body></html>`},
		[2]string{"OEBPS/text/c 2.xhtml", `<html><body><h1>Chapter Two</h1><p>The second words.</p></body></html>`},
	)
}

func TestEPUB3Nav(t *testing.T) {
	doc, err := New(Limits{}).Extract(context.Background(), tinyEPUB3(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Pages) != 2 || !strings.Contains(doc.Pages[1].Text, "The second words.") {
		t.Fatalf("pages: %+v", doc.Pages)
	}
	if doc.Depth() != 2 || doc.Outline[0].Title != "Chapter One" || doc.Outline[1].Page != 2 || doc.Outline[0].Children[0].Page != 1 {
		t.Errorf("outline: %+v", doc.Outline)
	}
}

func TestBadBooks(t *testing.T) {
	good := tinyEPUB3(t)
	bomb := func() []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("OEBPS/big.xhtml")
		zeros := make([]byte, 1<<20)
		for range 40 { // 40 MiB of zeros: a few tens of KiB compressed
			w.Write(zeros)
		}
		zw.Close()
		return buf.Bytes()
	}()
	tests := []struct {
		name string
		data []byte
		want error
		msg  string
	}{
		{"empty", nil, ingest.ErrEmpty, "empty"},
		{"truncated", good[:len(good)/2], ingest.ErrCorrupt, "truncated"},
		{"not a zip", []byte("PK\x03\x04 this is not really a zip archive"), ingest.ErrCorrupt, "zip"},
		{"zip bomb", bomb, ingest.ErrTooLarge, "more than"},
		{"climbing entry", book(t, [2]string{"../evil.xhtml", "x"}), ingest.ErrCorrupt, "../"},
		{"absolute entry", book(t, [2]string{"/etc/passwd", "x"}), ingest.ErrCorrupt, "absolute"},
		{"climbing href", book(t,
			[2]string{"META-INF/container.xml", containerXML},
			[2]string{"OEBPS/content.opf", opfXML(`<item id="c" href="../../secret.xhtml" media-type="application/xhtml+xml"/>`, `<itemref idref="c"/>`)},
		), ingest.ErrCorrupt, "leaves the book"},
		{"no container", book(t, [2]string{"mimetype", "application/epub+zip"}), ingest.ErrCorrupt, "container.xml"},
		{"empty spine", book(t,
			[2]string{"META-INF/container.xml", containerXML},
			[2]string{"OEBPS/content.opf", opfXML("", "")},
		), ingest.ErrCorrupt, "spine is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := New(Limits{MaxTotalBytes: 16 << 20, MaxEntryBytes: 8 << 20}).Extract(context.Background(), tt.data, nil)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v (doc %v), want %v", err, doc != nil, tt.want)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
		})
	}
}

// A zip whose directory understates an entry's size is still stopped by
// the bytes actually inflated.
func TestLyingSize(t *testing.T) {
	data := book(t,
		[2]string{"META-INF/container.xml", containerXML},
		[2]string{"OEBPS/content.opf", opfXML(`<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>`, `<itemref idref="c"/>`)},
		[2]string{"OEBPS/c.xhtml", "<p>" + strings.Repeat("x", 1<<20) + "</p>"},
	)
	a, err := openArchive(data, Limits{MaxEntryBytes: 1 << 21}.norm())
	if err != nil {
		t.Fatal(err)
	}
	a.files["OEBPS/c.xhtml"].UncompressedSize64 = 10 // the lie
	a.limits.MaxEntryBytes = 1 << 10
	if _, err := a.open("OEBPS/c.xhtml"); !errors.Is(err, ingest.ErrTooLarge) && !errors.Is(err, ingest.ErrCorrupt) {
		t.Fatalf("err = %v, want a size or corruption error", err)
	}
}

// BenchmarkExtractSRD is EPUB extraction alone, in spine items per second.
func BenchmarkExtractSRD(b *testing.B) {
	data := readSRD(b)
	e := New(Limits{})
	pages := 0
	for b.Loop() {
		doc, err := e.Extract(context.Background(), data, nil)
		if err != nil {
			b.Fatal(err)
		}
		pages += len(doc.Pages)
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}
