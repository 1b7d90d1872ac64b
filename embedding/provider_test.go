package embedding

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/llm"
)

// fakeProvider returns vectors of a given length and records its calls.
type fakeProvider struct {
	llm.Provider // only Embed and Name are called
	dim          int
	calls        [][]string
	err          error
}

func (p *fakeProvider) Name() string { return "fake" }

func (p *fakeProvider) Embed(_ context.Context, model string, texts []string) ([][]float32, error) {
	p.calls = append(p.calls, texts)
	if p.err != nil {
		return nil, p.err
	}
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := make([]float32, p.dim)
		for j := range v {
			v[j] = float32(len(s) + j)
		}
		out[i] = v
	}
	return out, nil
}

func TestFromProvider(t *testing.T) {
	p := &fakeProvider{dim: 8}
	e := FromProvider(p, "nomic", 8)
	if e.Name() != "fake:nomic:8" || e.Dim() != 8 {
		t.Fatalf("Name %q Dim %d", e.Name(), e.Dim())
	}
	texts := make([]string, 2*batchSize+1)
	for i := range texts {
		texts[i] = strings.Repeat("x", i)
	}
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(vecs), len(texts))
	}
	if len(p.calls) != 3 || len(p.calls[0]) != batchSize || len(p.calls[2]) != 1 {
		t.Errorf("batches of %d, %d, %d; want %d, %d, 1", len(p.calls[0]), len(p.calls[1]), len(p.calls[len(p.calls)-1]), batchSize, batchSize)
	}
	for i, v := range vecs {
		if n := Dot(v, v); math.Abs(float64(n)-1) > 1e-5 {
			t.Fatalf("vector %d: |v|² = %v, want 1", i, n)
		}
	}
	// Order is kept: text 5's vector came from a text of length 5.
	want := make([]float32, 8)
	for j := range want {
		want[j] = float32(5 + j)
	}
	Normalize(want)
	if Dot(vecs[5], want) < 0.9999 {
		t.Error("vectors came back out of order")
	}
}

func TestFromProviderErrors(t *testing.T) {
	boom := errors.New("connection refused")
	tests := []struct {
		name string
		e    Embedder
		want string
	}{
		{"wrong dimension", FromProvider(&fakeProvider{dim: 4}, "m", 8), "4 dimensions, want 8"},
		{"provider error", FromProvider(&fakeProvider{dim: 8, err: boom}, "m", 8), "connection refused"},
		{"no dimension", FromProvider(&fakeProvider{dim: 8}, "m", 0), "not positive"},
		{"no provider", FromProvider(nil, "m", 8), "no provider"},
	}
	for _, tt := range tests {
		_, err := tt.e.Embed(context.Background(), []string{"a"})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to say %q", tt.name, err, tt.want)
		}
	}
	_, err := FromProvider(&fakeProvider{dim: 8, err: boom}, "m", 8).Embed(context.Background(), []string{"a"})
	if !errors.Is(err, boom) {
		t.Errorf("provider error not wrapped: %v", err)
	}
}
