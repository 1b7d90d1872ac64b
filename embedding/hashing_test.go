package embedding

import (
	"context"
	"math"
	"strings"
	"testing"
)

func embedOne(t testing.TB, e Embedder, s string) []float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), []string{s})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

func TestHashingDeterministicAndUnit(t *testing.T) {
	e := NewHashing(0)
	if e.Dim() != DefaultDim || e.Name() != "hashing-384" {
		t.Fatalf("NewHashing(0): Dim %d Name %q, want %d hashing-384", e.Dim(), e.Name(), DefaultDim)
	}
	text := "The lantern of Saltmere has gone dark; the keeper's daughter climbs the stair."
	a, b := embedOne(t, e, text), embedOne(t, NewHashing(384), text)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("element %d differs between runs: %v vs %v", i, a[i], b[i])
		}
	}
	if n := Dot(a, a); math.Abs(float64(n)-1) > 1e-5 {
		t.Errorf("|v|² = %v, want 1", n)
	}
	// A text with no words embeds to zeros rather than NaNs.
	for _, s := range []string{"", "  ,;!  ", "the of and"} {
		for i, x := range embedOne(t, e, s) {
			if x != 0 {
				t.Fatalf("%q: element %d = %v, want 0", s, i, x)
			}
		}
	}
}

func TestHashingSimilarity(t *testing.T) {
	e := NewHashing(384)
	tests := []struct {
		query, near, far string
	}{
		{
			"the lighthouse keeper lights the lantern",
			"A keeper lit the lanterns of the old lighthouse.",
			"Goblins ambush travellers on the forest road at dusk.",
		},
		{
			"dragon hoard gold",
			"The red dragon sleeps upon a hoard of gold coins.",
			"The harbour master collects docking fees in silver.",
		},
		{
			// Misspelling and inflection: trigrams and stemming.
			"necromancer raising skeletons",
			"A necromancr raises a skeleton from the crypt.",
			"Merchants haggle over the price of wool.",
		},
	}
	for _, tt := range tests {
		q := embedOne(t, e, tt.query)
		near, far := Dot(q, embedOne(t, e, tt.near)), Dot(q, embedOne(t, e, tt.far))
		if near <= far {
			t.Errorf("%q: similar text scored %.3f, unrelated %.3f; want similar higher", tt.query, near, far)
		}
	}
}

func TestHashingLongAndOddInput(t *testing.T) {
	e := NewHashing(64)
	long := strings.Repeat("é", MaxHashingInput) // 2 bytes each: cut mid-rune
	for _, s := range []string{long, "\xff\xfe broken utf8", "don't’s ''' ’’"} {
		v := embedOne(t, e, s)
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("%.20q: vector holds %v", s, x)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, []string{"x"}); err == nil {
		t.Error("Embed with a cancelled context succeeded, want error")
	}
}

func TestStem(t *testing.T) {
	tests := []struct{ in, want string }{
		{"lanterns", "lantern"},
		{"ponies", "pony"},
		{"running", "run"},
		{"falling", "fall"},
		{"climbed", "climb"},
		{"quickly", "quick"},
		{"glass", "glass"},
		{"passes", "pass"},
		{"keeper's", "keeper"},
		{"gas", "gas"},
		{"bus", "bus"},
	}
	for _, tt := range tests {
		base, suffix := stem(tt.in)
		if got := base + suffix; got != tt.want {
			t.Errorf("stem(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzHashing(f *testing.F) {
	for _, s := range []string{"", "The keeper's lantern", "\xff\x00", "ÉCOLE école", "a b c d e f"} {
		f.Add(s)
	}
	e := NewHashing(32)
	f.Fuzz(func(t *testing.T, s string) {
		v := embedOne(t, e, s)
		if len(v) != 32 {
			t.Fatalf("got %d dimensions, want 32", len(v))
		}
		var sum float64
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("vector holds %v", x)
			}
			sum += float64(x) * float64(x)
		}
		if sum != 0 && math.Abs(sum-1) > 1e-4 {
			t.Fatalf("|v|² = %v, want 0 or 1", sum)
		}
	})
}

func BenchmarkHashing(b *testing.B) {
	e := NewHashing(384)
	text := strings.Repeat("The keeper climbs the winding stair of the old lighthouse at Saltmere. ", 8)
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Embed(ctx, []string{text}); err != nil {
			b.Fatal(err)
		}
	}
}
