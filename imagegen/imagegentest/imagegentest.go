// Package imagegentest runs local servers that speak the image providers'
// documented wire formats, for tests of imagegen's adapters and of
// anything built on them: they check the request's path, auth header and
// JSON fields as the real services do and answer in the real shapes with
// real PNGs. They are not mocks of the Provider interface.
package imagegentest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth/imagegen/imagestest"
)

// Key is the API key the servers accept.
const Key = "test-image-key"

// Server is a fake provider endpoint.
type Server struct {
	*httptest.Server
	// Base is the base URL to configure (with /v1 for OpenAI).
	Base string

	mu      sync.Mutex
	prompts []string
	// Reply, when set, replaces the answer: status and raw body.
	reply func(w http.ResponseWriter)
}

// Prompts returns the prompts received, in order.
func (s *Server) Prompts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prompts...)
}

// ReplyWith makes every later answer status with body.
func (s *Server) ReplyWith(status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reply = func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body) //nolint:errcheck // the client left
	}
}

func (s *Server) record(prompt string) (func(http.ResponseWriter), bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prompts = append(s.prompts, prompt)
	return s.reply, s.reply != nil
}

func fail(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body) //nolint:errcheck // the client left
}

// strict decodes the body into v, refusing unknown fields as the OpenAI
// API does.
func strict(r *http.Request, v any) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// OpenAI serves POST /v1/images/generations: Bearer Key, {model, prompt,
// n, size?, response_format? (DALL·E only)}, answered with {created,
// data: [{b64_json, revised_prompt}]}; errors as {error: {message, type,
// code}}.
func OpenAI(t testing.TB) *Server {
	s := &Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/images/generations", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+Key {
			fail(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"message": "Incorrect API key provided.", "type": "invalid_request_error", "code": "invalid_api_key"}})
			return
		}
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			fail(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "want JSON", "type": "invalid_request_error"}})
			return
		}
		var req struct {
			Model          string `json:"model"`
			Prompt         string `json:"prompt"`
			N              int    `json:"n"`
			Size           string `json:"size"`
			ResponseFormat string `json:"response_format"`
		}
		if err := strict(r, &req); err != nil {
			fail(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error"}})
			return
		}
		reply, ok := s.record(req.Prompt)
		if ok {
			reply(w)
			return
		}
		switch {
		case req.Model == "" || req.Prompt == "":
			fail(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "model and prompt are required", "type": "invalid_request_error"}})
			return
		case strings.HasPrefix(req.Model, "dall-e") && req.ResponseFormat != "b64_json":
			fail(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "this test server answers only b64_json", "type": "invalid_request_error"}})
			return
		case !strings.HasPrefix(req.Model, "dall-e") && req.ResponseFormat != "":
			fail(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "Unknown parameter: 'response_format'.", "type": "invalid_request_error", "code": "unknown_parameter"}})
			return
		case req.N < 1 || req.N > 10:
			fail(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "n must be 1 to 10", "type": "invalid_request_error"}})
			return
		}
		var data []map[string]string
		for i := range req.N {
			data = append(data, map[string]string{"b64_json": base64.StdEncoding.EncodeToString(imagestest.PNG(fmt.Sprintf("openai %d %s", i, req.Prompt[:min(len(req.Prompt), 40)]))),
				"revised_prompt": "revised: " + req.Prompt[:min(len(req.Prompt), 40)]})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"created": 1700000000, "data": data}) //nolint:errcheck // the client left
	})
	s.Server = httptest.NewServer(mux)
	s.Base = s.URL + "/v1"
	t.Cleanup(s.Close)
	return s
}

// GeminiModel is the model the Imagen server knows.
const GeminiModel = "imagen-3.0-generate-002"

// Gemini serves Imagen's predict method as Vertex AI's express mode does:
// POST /v1beta1/publishers/google/models/{model}:predict with the key in
// x-goog-api-key, {instances: [{prompt}], parameters: {sampleCount,
// aspectRatio?, outputOptions: {mimeType}}}, answered with {predictions:
// [{bytesBase64Encoded, mimeType}]}; errors as {error: {code, message,
// status}}.
func Gemini(t testing.TB) *Server {
	s := &Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1beta1/publishers/google/models/{call}", func(w http.ResponseWriter, r *http.Request) {
		gerr := func(status int, msg, code string) {
			fail(w, status, map[string]any{"error": map[string]any{"code": status, "message": msg, "status": code}})
		}
		if r.Header.Get("x-goog-api-key") != Key {
			gerr(http.StatusUnauthorized, "API key not valid. Please pass a valid API key.", "UNAUTHENTICATED")
			return
		}
		model, method, _ := strings.Cut(r.PathValue("call"), ":")
		if method != "predict" {
			gerr(http.StatusNotFound, "unknown method "+method, "NOT_FOUND")
			return
		}
		if model != GeminiModel {
			gerr(http.StatusNotFound, "Publisher Model `"+model+"` not found.", "NOT_FOUND")
			return
		}
		var req struct {
			Instances []struct {
				Prompt string `json:"prompt"`
			} `json:"instances"`
			Parameters struct {
				SampleCount   int    `json:"sampleCount"`
				AspectRatio   string `json:"aspectRatio"`
				OutputOptions struct {
					MimeType string `json:"mimeType"`
				} `json:"outputOptions"`
			} `json:"parameters"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil || len(req.Instances) != 1 || req.Instances[0].Prompt == "" {
			gerr(http.StatusBadRequest, "want one instance with a prompt", "INVALID_ARGUMENT")
			return
		}
		prompt := req.Instances[0].Prompt
		reply, ok := s.record(prompt)
		if ok {
			reply(w)
			return
		}
		p := req.Parameters
		if p.SampleCount < 1 || p.SampleCount > 4 || p.OutputOptions.MimeType != "image/png" {
			gerr(http.StatusBadRequest, fmt.Sprintf("sampleCount %d, mimeType %q", p.SampleCount, p.OutputOptions.MimeType), "INVALID_ARGUMENT")
			return
		}
		switch p.AspectRatio {
		case "", "1:1", "3:4", "4:3", "9:16", "16:9":
		default:
			gerr(http.StatusBadRequest, "bad aspectRatio "+p.AspectRatio, "INVALID_ARGUMENT")
			return
		}
		var preds []map[string]string
		for i := range p.SampleCount {
			preds = append(preds, map[string]string{"mimeType": "image/png",
				"bytesBase64Encoded": base64.StdEncoding.EncodeToString(imagestest.PNG(fmt.Sprintf("imagen %d %s", i, prompt[:min(len(prompt), 40)])))})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"predictions": preds}) //nolint:errcheck // the client left
	})
	s.Server = httptest.NewServer(mux)
	s.Base = s.URL
	t.Cleanup(s.Close)
	return s
}
