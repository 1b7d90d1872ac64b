package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Retry is how a provider's transient failures are retried.
type Retry struct {
	Attempts int           // total tries, including the first (default 3)
	Base     time.Duration // first backoff (default 500 ms), doubled each time
	Max      time.Duration // backoff cap (default 10 s)
	// Sleep waits between attempts; tests replace it. Default: a timer
	// that gives up when ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
}

// WithRetry retries p's calls that fail with a transient error (no
// connection, rate limit, overload, timeout), waiting base × 2^(n−1) with
// jitter, or what the server's Retry-After asked for. A streamed call is
// retried only while nothing has reached fn yet, so no text is repeated.
func WithRetry(p Provider, r Retry) Provider {
	if r.Attempts <= 0 {
		r.Attempts = 3
	}
	if r.Base <= 0 {
		r.Base = 500 * time.Millisecond
	}
	if r.Max <= 0 {
		r.Max = 10 * time.Second
	}
	if r.Sleep == nil {
		r.Sleep = sleep
	}
	return &retrying{Provider: p, r: r}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

type retrying struct {
	Provider
	r Retry
}

func (p *retrying) backoff(attempt int, err error) time.Duration {
	var e *Error
	if errors.As(err, &e) && e.RetryAfter > 0 {
		return min(e.RetryAfter, p.r.Max)
	}
	d := p.r.Base << (attempt - 1)
	d += time.Duration(rand.Int64N(int64(d)/4 + 1)) // jitter, so clients do not retry in step
	return min(d, p.r.Max)
}

func (p *retrying) Chat(ctx context.Context, req Request, fn func(Chunk) error) (*Response, error) {
	for attempt := 1; ; attempt++ {
		streamed := false
		wrapped := fn
		if fn != nil {
			wrapped = func(c Chunk) error { streamed = true; return fn(c) }
		}
		resp, err := p.Provider.Chat(ctx, req, wrapped)
		if err == nil || streamed || attempt >= p.r.Attempts || !IsTransient(err) || ctx.Err() != nil {
			if err != nil && attempt > 1 {
				err = fmt.Errorf("after %d attempts: %w", attempt, err)
			}
			return resp, err
		}
		if serr := p.r.Sleep(ctx, p.backoff(attempt, err)); serr != nil {
			return nil, errors.Join(err, serr)
		}
	}
}

func (p *retrying) Models(ctx context.Context) ([]Model, error) {
	return retryValue(ctx, p, func() ([]Model, error) { return p.Provider.Models(ctx) })
}

func (p *retrying) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	return retryValue(ctx, p, func() ([][]float32, error) { return p.Provider.Embed(ctx, model, texts) })
}

func retryValue[T any](ctx context.Context, p *retrying, call func() (T, error)) (T, error) {
	for attempt := 1; ; attempt++ {
		v, err := call()
		if err == nil || attempt >= p.r.Attempts || !IsTransient(err) || ctx.Err() != nil {
			return v, err
		}
		if serr := p.r.Sleep(ctx, p.backoff(attempt, err)); serr != nil {
			return v, errors.Join(err, serr)
		}
	}
}

// WithTimeout bounds each call of p. A chat that is still streaming when
// the time is up fails with a Timeout error (which WithRetry treats as
// transient).
func WithTimeout(p Provider, d time.Duration) Provider {
	if d <= 0 {
		return p
	}
	return &timed{Provider: p, d: d}
}

type timed struct {
	Provider
	d time.Duration
}

func (p *timed) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, p.d, &Error{Provider: p.Name(), Kind: Timeout,
		Message: fmt.Sprintf("no complete answer within %s", p.d)})
}

func (p *timed) cause(ctx context.Context, err error) error {
	if err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		if c := context.Cause(ctx); c != nil && c != err {
			var e *Error
			if errors.As(c, &e) {
				return e
			}
		}
	}
	return err
}

func (p *timed) Chat(ctx context.Context, req Request, fn func(Chunk) error) (*Response, error) {
	cctx, cancel := p.ctx(ctx)
	defer cancel()
	resp, err := p.Provider.Chat(cctx, req, fn)
	if ctx.Err() == nil {
		err = p.cause(cctx, err)
	}
	return resp, err
}

func (p *timed) Models(ctx context.Context) ([]Model, error) {
	cctx, cancel := p.ctx(ctx)
	defer cancel()
	m, err := p.Provider.Models(cctx)
	if ctx.Err() == nil {
		err = p.cause(cctx, err)
	}
	return m, err
}

func (p *timed) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	cctx, cancel := p.ctx(ctx)
	defer cancel()
	v, err := p.Provider.Embed(cctx, model, texts)
	if ctx.Err() == nil {
		err = p.cause(cctx, err)
	}
	return v, err
}

// Call describes one finished model call, for metrics and logs.
type Call struct {
	Provider   string
	Model      string
	Op         string // chat, models, embed
	Duration   time.Duration
	FirstChunk time.Duration // time to the first streamed chunk; 0 if none
	Usage      Usage
	ToolCalls  int
	Err        error
}

// WithObserver calls observe after every call of p.
func WithObserver(p Provider, observe func(Call)) Provider {
	return &observed{Provider: p, observe: observe}
}

type observed struct {
	Provider
	observe func(Call)
}

func (p *observed) Chat(ctx context.Context, req Request, fn func(Chunk) error) (*Response, error) {
	start := time.Now()
	var first time.Duration
	wrapped := fn
	if fn != nil {
		wrapped = func(c Chunk) error {
			if first == 0 {
				first = time.Since(start)
			}
			return fn(c)
		}
	}
	resp, err := p.Provider.Chat(ctx, req, wrapped)
	c := Call{Provider: p.Name(), Model: req.Model, Op: "chat", Duration: time.Since(start), FirstChunk: first, Err: err}
	if resp != nil {
		c.Usage, c.ToolCalls = resp.Usage, len(resp.Message.ToolCalls)
	}
	p.observe(c)
	return resp, err
}

func (p *observed) Models(ctx context.Context) ([]Model, error) {
	start := time.Now()
	m, err := p.Provider.Models(ctx)
	p.observe(Call{Provider: p.Name(), Op: "models", Duration: time.Since(start), Err: err})
	return m, err
}

func (p *observed) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	start := time.Now()
	v, err := p.Provider.Embed(ctx, model, texts)
	p.observe(Call{Provider: p.Name(), Model: model, Op: "embed", Duration: time.Since(start), Err: err})
	return v, err
}
