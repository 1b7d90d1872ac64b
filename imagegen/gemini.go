package imagegen

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"google.golang.org/genai"

	"github.com/hearth-rpg/hearth"
)

// Gemini generates images with Imagen through the genai SDK's
// Models.GenerateImages. The SDK serves that method only on its Vertex
// backend, so the adapter uses it in express mode (an API key, no
// project): POST {base}/v1beta1/publishers/google/models/{model}:predict
// with the key in x-goog-api-key, {instances: [{prompt}], parameters:
// {sampleCount, aspectRatio, outputOptions: {mimeType}}}, answered by
// {predictions: [{bytesBase64Encoded, mimeType}]}.
type Gemini struct {
	o Options
	// The one service Hearth calls, not the *genai.Client: a field of
	// that type would make every service the SDK has part of the binary.
	models *genai.Models
}

var _ Provider = (*Gemini)(nil)

// NewGemini returns the adapter; o.BaseURL empty is Vertex AI's public
// endpoint. An API key is required unless BaseURL names a server of one's
// own (a proxy that adds credentials).
func NewGemini(ctx context.Context, o Options) (*Gemini, error) {
	if strings.TrimSpace(o.Model) == "" {
		return nil, hearth.Errorf(hearth.Invalid, "gemini image generation needs a model, such as imagen-3.0-generate-002")
	}
	if o.BaseURL != "" {
		u, err := url.Parse(o.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, hearth.Errorf(hearth.Invalid, "gemini image generation: base URL %q: want http(s)://host[:port][/path]", clip(o.BaseURL, 200))
		}
	}
	if o.APIKey == "" && o.BaseURL == "" {
		// The SDK would look for Google Cloud credentials on the machine;
		// the configuration decides where keys come from, so refuse.
		return nil, hearth.Errorf(hearth.Invalid, "gemini image generation needs an API key ([images] api_key, api_key_env or api_key_file)")
	}
	o.defaults()
	one := int32(1)
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:     o.APIKey,
		Backend:    genai.BackendVertexAI,
		HTTPClient: limited(o.Client, o.MaxResponse),
		HTTPOptions: genai.HTTPOptions{
			BaseURL:      o.BaseURL,
			RetryOptions: &genai.HTTPRetryOptions{Attempts: &one}, // the caller retries, if anyone
		},
	})
	if err != nil {
		msg := err.Error()
		if o.APIKey != "" {
			msg = strings.ReplaceAll(msg, o.APIKey, "[key]") // some SDK errors print the whole config
		}
		return nil, hearth.Errorf(hearth.Invalid, "gemini image generation: %s", clip(msg, 300))
	}
	return &Gemini{o: o, models: client.Models}, nil
}

// Name implements Provider.
func (p *Gemini) Name() string { return "gemini" }

// Model implements Provider.
func (p *Gemini) Model() string { return p.o.Model }

// Generate implements Provider.
func (p *Gemini) Generate(ctx context.Context, r Request) ([]Image, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	ctx, cancel := withTimeout(ctx)
	defer cancel()
	cfg := &genai.GenerateImagesConfig{NumberOfImages: int32(r.N), OutputMIMEType: "image/png"}
	if r.Size != "" {
		w, h, _ := parseSize(r.Size)
		cfg.AspectRatio = aspect(w, h)
	}
	res, err := p.models.GenerateImages(ctx, p.o.Model, r.Prompt, cfg)
	if err != nil {
		var ae genai.APIError
		if errors.As(err, &ae) {
			code := hearth.Unavailable
			if ae.Code == 400 {
				code = hearth.Invalid
			}
			return nil, hearth.Errorf(code, "gemini image generation: HTTP %d: %s", ae.Code, clip(ae.Message, 300))
		}
		msg := err.Error()
		if p.o.APIKey != "" {
			msg = strings.ReplaceAll(msg, p.o.APIKey, "[key]")
		}
		return nil, unavailable("gemini", fmt.Errorf("%s: %w", clip(msg, 300), unwrapContext(err)))
	}
	imgs := make([]Image, 0, len(res.GeneratedImages))
	var filtered string
	for i, g := range res.GeneratedImages {
		if g == nil || g.Image == nil || len(g.Image.ImageBytes) == 0 {
			if g != nil && g.RAIFilteredReason != "" {
				filtered = g.RAIFilteredReason
				continue
			}
			return nil, hearth.Errorf(hearth.Unavailable, "gemini image generation: image %d has no bytes", i)
		}
		if !IsPNG(g.Image.ImageBytes) {
			return nil, hearth.Errorf(hearth.Unavailable, "gemini image generation: image %d is not a PNG (%s)", i, clip(g.Image.MIMEType, 40))
		}
		imgs = append(imgs, Image{PNG: g.Image.ImageBytes, RevisedPrompt: g.EnhancedPrompt})
	}
	if len(imgs) == 0 {
		if filtered != "" {
			return nil, hearth.Errorf(hearth.Invalid, "gemini image generation: the image was filtered: %s", clip(filtered, 300))
		}
		return nil, hearth.Errorf(hearth.Unavailable, "gemini image generation: the answer holds no image")
	}
	return imgs, nil
}

// unwrapContext keeps a context error findable by errors.Is, and the
// body limit's, without the SDK's wording.
func unwrapContext(err error) error {
	for _, target := range []error{context.Canceled, context.DeadlineExceeded, errTooLarge} {
		if errors.Is(err, target) {
			return target
		}
	}
	return errors.New("request failed")
}

// aspect is the Imagen aspect ratio nearest w:h.
func aspect(w, h int) string {
	ratios := []struct {
		name string
		v    float64
	}{{"1:1", 1}, {"3:4", 0.75}, {"4:3", 4.0 / 3}, {"9:16", 9.0 / 16}, {"16:9", 16.0 / 9}}
	r := float64(w) / float64(h)
	best, bestD := "1:1", 1e9
	for _, c := range ratios {
		d := r/c.v + c.v/r // symmetric in the ratio's log: 2 at a match
		if d < bestD {
			best, bestD = c.name, d
		}
	}
	return best
}
