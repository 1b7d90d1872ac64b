package tokens

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	c, err := CL100K()
	if err != nil {
		t.Fatal(err)
	}
	// Reference counts from OpenAI's tiktoken (cl100k_base).
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"The lantern of Saltmere has gone dark.", 9},
		{"tiktoken is great!", 6},
	} {
		if got := c.Count(tc.in); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	c, err := CL100K()
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Repeat("The keeper climbs the stair. ", 50)
	cut, n := c.Truncate(s, 20)
	if n != 20 || c.Count(cut) > 20 || !strings.HasPrefix(s, cut) {
		t.Fatalf("Truncate to 20 gave %d tokens (%d counted): %q", n, c.Count(cut), cut)
	}
	if whole, n := c.Truncate("short", 20); whole != "short" || n != 1 {
		t.Fatalf("Truncate(short) = %q, %d", whole, n)
	}
	if cut, n := c.Truncate(s, 0); cut != "" || n != 0 {
		t.Fatalf("Truncate(0) = %q, %d", cut, n)
	}
}

func BenchmarkCount(b *testing.B) {
	c, err := CL100K()
	if err != nil {
		b.Fatal(err)
	}
	// Real prose: a chapter of the D&D 5e SRD.
	text, err := os.ReadFile(filepath.Join("..", "..", "shared", "testdata", "srd51", "md", "Equipment", "Gear.md"))
	if err != nil {
		b.Skipf("SRD text not found beside the repository: %v", err)
	}
	s := string(text)
	n := c.Count(s)
	b.SetBytes(int64(len(s)))
	b.ResetTimer()
	for b.Loop() {
		c.Count(s)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}
