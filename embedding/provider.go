package embedding

import (
	"context"
	"fmt"
	"math"

	"github.com/hearth-rpg/hearth/llm"
)

// batchSize is how many texts go to the model server in one call: large
// enough to amortise a round trip, small enough that one request stays
// well under the servers' body limits.
const batchSize = 64

// FromProvider returns an Embedder backed by a model server's embedding
// endpoint. dim is the model's vector length; a vector of any other
// length is an error, because it means the model is not the one the
// index was built with. Texts go to the server in batches and the
// vectors come back L2-normalised.
func FromProvider(p llm.Provider, model string, dim int) Embedder {
	return &provider{p: p, model: model, dim: dim}
}

type provider struct {
	p     llm.Provider
	model string
	dim   int
}

func (e *provider) Dim() int { return e.dim }

// Name includes the provider, the model and the dimension, so that
// switching any of them is seen as a new embedding space.
func (e *provider) Name() string {
	name := "provider"
	if e.p != nil {
		name = e.p.Name()
	}
	return fmt.Sprintf("%s:%s:%d", name, e.model, e.dim)
}

func (e *provider) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.p == nil {
		return nil, fmt.Errorf("embed with model %q: no provider configured", e.model)
	}
	if e.dim <= 0 {
		return nil, fmt.Errorf("embed with %s: dimension %d is not positive; set the model's vector length", e.Name(), e.dim)
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += batchSize {
		batch := texts[start:min(start+batchSize, len(texts))]
		vecs, err := e.p.Embed(ctx, e.model, batch)
		if err != nil {
			return nil, fmt.Errorf("embed texts %d–%d of %d with %s: %w", start+1, start+len(batch), len(texts), e.Name(), err)
		}
		if len(vecs) != len(batch) {
			return nil, fmt.Errorf("embed with %s: asked for %d vectors, got %d", e.Name(), len(batch), len(vecs))
		}
		for i, v := range vecs {
			if len(v) != e.dim {
				return nil, fmt.Errorf("embed text %d with %s: vector has %d dimensions, want %d (is the model the one the index was built with?)", start+i+1, e.Name(), len(v), e.dim)
			}
			for _, x := range v {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					return nil, fmt.Errorf("embed text %d with %s: vector holds %v", start+i+1, e.Name(), x)
				}
			}
			// Copy before normalising: the provider may reuse its buffers.
			w := append([]float32(nil), v...)
			Normalize(w)
			out = append(out, w)
		}
	}
	return out, nil
}
