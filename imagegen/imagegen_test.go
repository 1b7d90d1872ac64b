package imagegen_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/imagegen"
	"github.com/hearth-rpg/hearth/imagegen/imagegentest"
)

// adapter builds one provider against its fake server.
type adapter struct {
	name  string
	fake  func(testing.TB) *imagegentest.Server
	model string
	make  func(o imagegen.Options) (imagegen.Provider, error)
	// bad is an answer of the right status but no image in it.
	empty string
	// wrapImage wraps a base64 image in the provider's answer.
	wrapImage func(b64 string) string
}

var adapters = []adapter{
	{
		name: "openai", fake: imagegentest.OpenAI, model: "gpt-image-1",
		make:      func(o imagegen.Options) (imagegen.Provider, error) { return imagegen.NewOpenAI(o) },
		empty:     `{"created":1,"data":[]}`,
		wrapImage: func(b string) string { return `{"created":1,"data":[{"b64_json":"` + b + `"}]}` },
	},
	{
		name: "gemini", fake: imagegentest.Gemini, model: imagegentest.GeminiModel,
		make: func(o imagegen.Options) (imagegen.Provider, error) {
			return imagegen.NewGemini(context.Background(), o)
		},
		empty: `{"predictions":[]}`,
		wrapImage: func(b string) string {
			return `{"predictions":[{"mimeType":"image/png","bytesBase64Encoded":"` + b + `"}]}`
		},
	},
}

func TestGenerate(t *testing.T) {
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			srv := a.fake(t)
			p, err := a.make(imagegen.Options{BaseURL: srv.Base, APIKey: imagegentest.Key, Model: a.model})
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != a.name || p.Model() != a.model {
				t.Errorf("name %q model %q", p.Name(), p.Model())
			}
			imgs, err := p.Generate(context.Background(), imagegen.Request{Prompt: "  A lantern-lit cellar  ", Size: "1792x1024", N: 2})
			if err != nil {
				t.Fatal(err)
			}
			if len(imgs) != 2 {
				t.Fatalf("%d images, want 2", len(imgs))
			}
			for i, im := range imgs {
				if !imagegen.IsPNG(im.PNG) {
					t.Errorf("image %d is not a PNG: %q", i, im.PNG[:min(len(im.PNG), 16)])
				}
			}
			if string(imgs[0].PNG) == string(imgs[1].PNG) {
				t.Error("two images are the same bytes: the count was not sent")
			}
			if got := srv.Prompts(); len(got) != 1 || got[0] != "A lantern-lit cellar" {
				t.Errorf("server received prompts %q", got)
			}
		})
	}
}

func TestGenerateFailures(t *testing.T) {
	notPNG := base64.StdEncoding.EncodeToString([]byte("GIF89a...."))
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			tests := []struct {
				name   string
				key    string
				status int
				body   string
				max    int64
				want   hearth.Code
				says   string
			}{
				{name: "bad key", key: "wrong", want: hearth.Unavailable, says: "401"},
				{name: "refused prompt", key: imagegentest.Key, status: 400, body: `{"error":{"code":400,"message":"the prompt was refused","status":"INVALID_ARGUMENT","type":"invalid_request_error"}}`, want: hearth.Invalid, says: "the prompt was refused"},
				{name: "server error", key: imagegentest.Key, status: 503, body: `{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}`, want: hearth.Unavailable, says: "503"},
				{name: "no image", key: imagegentest.Key, status: 200, body: a.empty, want: hearth.Unavailable, says: "no image"},
				{name: "not a PNG", key: imagegentest.Key, status: 200, body: a.wrapImage(notPNG), want: hearth.Unavailable, says: "not a PNG"},
				{name: "not JSON", key: imagegentest.Key, status: 200, body: `<html>proxy error</html>`, want: hearth.Unavailable},
				{name: "too large", key: imagegentest.Key, status: 200, body: a.wrapImage(strings.Repeat("A", 4096)), max: 1024, want: hearth.Unavailable, says: "larger than the limit"},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					srv := a.fake(t)
					if tt.status != 0 {
						srv.ReplyWith(tt.status, tt.body)
					}
					p, err := a.make(imagegen.Options{BaseURL: srv.Base, APIKey: tt.key, Model: a.model, MaxResponse: tt.max})
					if err != nil {
						t.Fatal(err)
					}
					imgs, err := p.Generate(context.Background(), imagegen.Request{Prompt: "a duel on the quay"})
					if err == nil {
						t.Fatalf("no error; %d images", len(imgs))
					}
					if hearth.ErrorCode(err) != tt.want || !strings.Contains(err.Error(), tt.says) {
						t.Errorf("error %q (%s), want code %s saying %q", err, hearth.ErrorCode(err), tt.want, tt.says)
					}
					if !strings.Contains(err.Error(), a.name) {
						t.Errorf("error %q does not name the provider", err)
					}
					if strings.Contains(err.Error(), imagegentest.Key) {
						t.Errorf("error %q holds the key", err)
					}
				})
			}
		})
	}
}

// A bad request is refused before anything is sent.
func TestRequestChecked(t *testing.T) {
	for _, a := range adapters {
		for _, r := range []imagegen.Request{{Prompt: "  "}, {Prompt: "x", N: imagegen.MaxN + 1}, {Prompt: "x", Size: "big"}, {Prompt: "x", Size: "0x10"}} {
			t.Run(fmt.Sprintf("%s/%+v", a.name, r), func(t *testing.T) {
				srv := a.fake(t)
				p, err := a.make(imagegen.Options{BaseURL: srv.Base, APIKey: imagegentest.Key, Model: a.model})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := p.Generate(context.Background(), r); hearth.ErrorCode(err) != hearth.Invalid {
					t.Errorf("error %v, want invalid", err)
				}
				if n := len(srv.Prompts()); n != 0 {
					t.Errorf("%d requests reached the server", n)
				}
			})
		}
	}
}

func TestCancelled(t *testing.T) {
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			srv := a.fake(t)
			p, err := a.make(imagegen.Options{BaseURL: srv.Base, APIKey: imagegentest.Key, Model: a.model})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := p.Generate(ctx, imagegen.Request{Prompt: "x"}); hearth.ErrorCode(err) != hearth.Unavailable || !strings.Contains(err.Error(), "did not finish") {
				t.Errorf("error %v, want unavailable, did not finish", err)
			}
		})
	}
}

func TestNewRefuses(t *testing.T) {
	if _, err := imagegen.NewOpenAI(imagegen.Options{}); hearth.ErrorCode(err) != hearth.Invalid {
		t.Errorf("openai without a model: %v", err)
	}
	for _, o := range []imagegen.Options{{}, {Model: "imagen-3.0-generate-002"}, {Model: "m", APIKey: "k", BaseURL: "ftp://x"}} {
		if _, err := imagegen.NewGemini(context.Background(), o); hearth.ErrorCode(err) != hearth.Invalid {
			t.Errorf("gemini %+v: %v", o, err)
		}
	}
}

// The adapters reach the real services' paths when no base URL is given.
func TestDefaultEndpoints(t *testing.T) {
	var hosts []string
	client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		hosts = append(hosts, r.URL.Scheme+"://"+r.URL.Host+r.URL.Path)
		return nil, fmt.Errorf("offline")
	})}
	o, err := imagegen.NewOpenAI(imagegen.Options{Model: "dall-e-3", APIKey: "k", Client: client})
	if err != nil {
		t.Fatal(err)
	}
	g, err := imagegen.NewGemini(context.Background(), imagegen.Options{Model: "imagen-3.0-generate-002", APIKey: "k", Client: client})
	if err != nil {
		t.Fatal(err)
	}
	o.Generate(context.Background(), imagegen.Request{Prompt: "x"}) //nolint:errcheck // only the URL matters
	g.Generate(context.Background(), imagegen.Request{Prompt: "x"}) //nolint:errcheck // only the URL matters
	want := []string{"https://api.openai.com/v1/images/generations",
		"https://aiplatform.googleapis.com/v1beta1/publishers/google/models/imagen-3.0-generate-002:predict"}
	if fmt.Sprint(hosts) != fmt.Sprint(want) {
		t.Errorf("requests went to %q, want %q", hosts, want)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
