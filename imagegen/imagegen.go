package imagegen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hearth-rpg/hearth"
)

// Request is what to draw.
type Request struct {
	Prompt string
	// Size is "WIDTHxHEIGHT" ("1024x1024"); empty is the provider's
	// default. Gemini takes it as an aspect ratio.
	Size string
	// N is how many images; 0 is one.
	N int
}

// Image is one generated picture.
type Image struct {
	PNG []byte
	// RevisedPrompt is the prompt the provider says it drew from, when it
	// rewrote the one it was given.
	RevisedPrompt string
}

// Provider generates images. Implementations are safe for concurrent use.
type Provider interface {
	// Name is the provider's configuration name ("openai", "gemini").
	Name() string
	// Model is the model it asks for.
	Model() string
	// Generate returns at least one image, or an error; never an empty
	// slice without one.
	Generate(ctx context.Context, r Request) ([]Image, error)
}

// Limits shared by the adapters.
const (
	// DefaultMaxResponse bounds a provider's answer: base64 PNGs of a few
	// 1024² images fit well within it.
	DefaultMaxResponse = 48 << 20
	// MaxN is the most images one request asks for.
	MaxN = 4
	// MaxPrompt is the longest prompt sent, in bytes; DALL·E 2 takes 1000
	// characters, the others more.
	MaxPrompt = 4000
	// DefaultTimeout bounds one generation when the caller set no deadline.
	DefaultTimeout = 3 * time.Minute
)

// Options configure an adapter. Model is required.
type Options struct {
	// BaseURL is the API's root; empty is the provider's public endpoint.
	BaseURL string
	APIKey  string
	Model   string
	// Client sends the requests; nil is a client with no timeout of its
	// own (each call is bounded by its context and DefaultTimeout).
	Client *http.Client
	// MaxResponse bounds the bytes read of one answer (DefaultMaxResponse).
	MaxResponse int64
}

func (o *Options) defaults() {
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	if o.MaxResponse <= 0 {
		o.MaxResponse = DefaultMaxResponse
	}
}

// pngMagic starts every PNG file.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// IsPNG reports whether b starts with the PNG signature.
func IsPNG(b []byte) bool { return bytes.HasPrefix(b, pngMagic) }

// check validates a request before anything is sent.
func (r *Request) check() error {
	r.Prompt = strings.TrimSpace(r.Prompt)
	if r.Prompt == "" {
		return hearth.Errorf(hearth.Invalid, "an image needs a prompt")
	}
	if len(r.Prompt) > MaxPrompt {
		r.Prompt = clip(r.Prompt, MaxPrompt)
	}
	if r.N == 0 {
		r.N = 1
	}
	if r.N < 0 || r.N > MaxN {
		return hearth.Errorf(hearth.Invalid, "ask for 1 to %d images, not %d", MaxN, r.N)
	}
	if r.Size != "" {
		if _, _, ok := parseSize(r.Size); !ok {
			return hearth.Errorf(hearth.Invalid, "image size %q is not WIDTHxHEIGHT, such as 1024x1024", clip(r.Size, 32))
		}
	}
	return nil
}

func parseSize(s string) (w, h int, ok bool) {
	a, b, found := strings.Cut(s, "x")
	if !found {
		return 0, 0, false
	}
	if _, err := fmt.Sscanf(a+" "+b, "%d %d", &w, &h); err != nil || w <= 0 || h <= 0 || w > 8192 || h > 8192 {
		return 0, 0, false
	}
	return w, h, true
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// errTooLarge is what a limited body returns past its limit.
var errTooLarge = errors.New("response too large")

// limitedBody fails, rather than truncating, once more than n bytes are
// read: a cut JSON document would only fail later with a vaguer error.
type limitedBody struct {
	rc io.ReadCloser
	n  int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	k, err := l.rc.Read(p)
	l.n -= int64(k)
	if l.n < 0 {
		return k, errTooLarge
	}
	return k, err
}

func (l *limitedBody) Close() error { return l.rc.Close() }

// limitTransport bounds every response body it carries.
type limitTransport struct {
	next http.RoundTripper
	max  int64
}

func (t limitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	res.Body = &limitedBody{rc: res.Body, n: t.max}
	return res, nil
}

// limited returns a copy of c whose response bodies fail past max bytes.
func limited(c *http.Client, max int64) *http.Client {
	cc := *c
	next := cc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	cc.Transport = limitTransport{next: next, max: max}
	return &cc
}

// unavailable wraps a provider's failure so that callers see whose it was.
func unavailable(provider string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return hearth.Errorf(hearth.Unavailable, "%s image generation did not finish: %w", provider, err)
	}
	if errors.Is(err, errTooLarge) {
		return hearth.Errorf(hearth.Unavailable, "%s image generation: the answer is larger than the limit", provider)
	}
	var he *hearth.Error
	if errors.As(err, &he) {
		return err
	}
	return hearth.Errorf(hearth.Unavailable, "%s image generation failed: %s", provider, clip(err.Error(), 300))
}

// withTimeout applies DefaultTimeout when ctx has no deadline.
func withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, DefaultTimeout)
}
