package imagegen

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/hearth-rpg/hearth"
)

// OpenAIBaseURL is the OpenAI API's root, as the model roles take it.
const OpenAIBaseURL = "https://api.openai.com/v1"

// OpenAI generates images with the OpenAI Images API (POST
// {base}/images/generations, answered in b64_json), or any server that
// speaks it.
type OpenAI struct{ o Options }

var _ Provider = (*OpenAI)(nil)

// NewOpenAI returns the adapter; o.BaseURL empty is OpenAIBaseURL.
func NewOpenAI(o Options) (*OpenAI, error) {
	if strings.TrimSpace(o.Model) == "" {
		return nil, hearth.Errorf(hearth.Invalid, "openai image generation needs a model, such as gpt-image-1 or dall-e-3")
	}
	if o.BaseURL == "" {
		o.BaseURL = OpenAIBaseURL
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	o.defaults()
	o.Client = limited(o.Client, o.MaxResponse)
	return &OpenAI{o: o}, nil
}

// Name implements Provider.
func (p *OpenAI) Name() string { return "openai" }

// Model implements Provider.
func (p *OpenAI) Model() string { return p.o.Model }

type openaiRequest struct {
	Model  string `json:"model"`
	Prompt string `json:"prompt"`
	N      int    `json:"n"`
	Size   string `json:"size,omitempty"`
	// ResponseFormat is DALL·E's: the GPT image models always answer in
	// b64_json and refuse the field.
	ResponseFormat string `json:"response_format,omitempty"`
}

type openaiResponse struct {
	Data []struct {
		B64JSON       string `json:"b64_json"`
		URL           string `json:"url"`
		RevisedPrompt string `json:"revised_prompt"`
	} `json:"data"`
	Error *openaiError `json:"error"`
}

type openaiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

// Generate implements Provider.
func (p *OpenAI) Generate(ctx context.Context, r Request) ([]Image, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	ctx, cancel := withTimeout(ctx)
	defer cancel()
	body := openaiRequest{Model: p.o.Model, Prompt: r.Prompt, N: r.N, Size: r.Size}
	if strings.HasPrefix(p.o.Model, "dall-e") {
		body.ResponseFormat = "b64_json"
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode the openai image request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.o.BaseURL+"/images/generations", bytes.NewReader(b))
	if err != nil {
		return nil, hearth.Errorf(hearth.Invalid, "openai image generation: bad base URL: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if p.o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.o.APIKey)
	}
	res, err := p.o.Client.Do(req)
	if err != nil {
		return nil, unavailable("openai", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, unavailable("openai", err)
	}
	var out openaiResponse
	decodeErr := json.Unmarshal(raw, &out)
	if res.StatusCode != http.StatusOK {
		msg := http.StatusText(res.StatusCode)
		if decodeErr == nil && out.Error != nil && out.Error.Message != "" {
			msg = out.Error.Message
		}
		code := hearth.Unavailable
		if res.StatusCode == http.StatusBadRequest {
			code = hearth.Invalid // a refused prompt or size: retrying will not help
		}
		return nil, hearth.Errorf(code, "openai image generation: HTTP %d: %s", res.StatusCode, clip(msg, 300))
	}
	if decodeErr != nil {
		return nil, hearth.Errorf(hearth.Unavailable, "openai image generation: the answer is not the Images API's JSON: %s", clip(decodeErr.Error(), 200))
	}
	imgs := make([]Image, 0, len(out.Data))
	for i, d := range out.Data {
		if d.B64JSON == "" {
			return nil, hearth.Errorf(hearth.Unavailable, "openai image generation: image %d has no b64_json (a URL answer is not supported)", i)
		}
		png, err := base64.StdEncoding.DecodeString(d.B64JSON)
		if err != nil {
			return nil, hearth.Errorf(hearth.Unavailable, "openai image generation: image %d is not base64: %v", i, err)
		}
		if !IsPNG(png) {
			return nil, hearth.Errorf(hearth.Unavailable, "openai image generation: image %d is not a PNG", i)
		}
		imgs = append(imgs, Image{PNG: png, RevisedPrompt: d.RevisedPrompt})
	}
	if len(imgs) == 0 {
		return nil, hearth.Errorf(hearth.Unavailable, "openai image generation: the answer holds no image")
	}
	return imgs, nil
}
