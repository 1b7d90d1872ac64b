package openai

import (
	"context"
	"encoding/json"

	sdk "github.com/openai/openai-go"

	"github.com/hearth-rpg/hearth/llm"
)

// Models lists the server's models (GET /models). ContextLength comes from
// the model's context_length (OpenRouter) or max_model_len (vLLM) where the
// server gives one, and is 0 otherwise.
func (p *Provider) Models(ctx context.Context) ([]llm.Model, error) {
	page, err := p.models.List(ctx)
	if err != nil {
		return nil, p.fail(err)
	}
	if page == nil {
		return nil, p.malformed("empty model list")
	}
	out := make([]llm.Model, 0, len(page.Data))
	for _, m := range page.Data {
		if m.ID == "" {
			continue
		}
		out = append(out, llm.Model{Name: m.ID, ContextLength: contextLength(m.RawJSON())})
	}
	return out, nil
}

// contextLength reads a model's context window from its raw JSON.
func contextLength(raw string) int {
	var v struct {
		ContextLength json.Number `json:"context_length"`
		MaxModelLen   json.Number `json:"max_model_len"`
	}
	if raw == "" || json.Unmarshal([]byte(raw), &v) != nil {
		return 0
	}
	for _, n := range []json.Number{v.ContextLength, v.MaxModelLen} {
		if i, err := n.Int64(); err == nil && i > 0 && i < 1<<31 {
			return int(i)
		}
		if f, err := n.Float64(); err == nil && f > 0 && f < 1<<31 {
			return int(f)
		}
	}
	return 0
}

// Embed embeds texts with model (POST /embeddings) and returns one vector
// per text, in the order of texts.
func (p *Provider) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	res, err := p.embeddings.New(ctx, sdk.EmbeddingNewParams{
		Model: sdk.EmbeddingModel(model),
		Input: sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
	})
	if err != nil {
		return nil, p.fail(err)
	}
	if res == nil || len(res.Data) != len(texts) {
		n := 0
		if res != nil {
			n = len(res.Data)
		}
		return nil, p.malformed("%d embeddings for %d texts", n, len(texts))
	}
	out := make([][]float32, len(texts))
	for _, e := range res.Data {
		i := e.Index
		if i < 0 || i >= int64(len(out)) || out[i] != nil {
			return nil, p.malformed("embedding index %d out of range or repeated", i)
		}
		if len(e.Embedding) == 0 {
			return nil, p.malformed("embedding %d is empty (was a non-float encoding returned?)", i)
		}
		v := make([]float32, len(e.Embedding))
		for j, f := range e.Embedding {
			v[j] = float32(f)
		}
		out[i] = v
	}
	return out, nil
}
