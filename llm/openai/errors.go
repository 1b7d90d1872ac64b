package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	sdk "github.com/openai/openai-go"
	"github.com/openai/openai-go/option"

	"github.com/hearth-rpg/hearth/llm"
)

// maxErrorBody is how much of an error response is read for its message.
const maxErrorBody = 64 << 10

// checkStatus is SDK middleware that turns every HTTP error status into an
// *llm.Error, with the server's message and Retry-After. The SDK's own
// *openai.Error keeps a message only when the body has OpenAI's
// {"error": {"message": ...}} shape: vLLM's {"message": ...}, FastAPI's
// {"detail": ...} or a proxy's text 502 page would come out with none.
func (p *Provider) checkStatus(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil {
		return res, err
	}
	if res.StatusCode < 400 {
		if strings.Contains(strings.ToLower(res.Header.Get("Content-Type")), "text/event-stream") {
			res.Body = &doneReader{rc: res.Body}
		}
		return res, nil
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	e := llm.StatusError(p.name, res.StatusCode, p.redact(errorMessage(body, res.Status)),
		fmt.Errorf("%s %s: %s", req.Method, req.URL.Redacted(), res.Status))
	e.RetryAfter = retryAfter(res.Header, time.Now())
	return nil, e
}

// doneReader ends a Server-Sent Events body at its "data: [DONE]" line.
// The SDK reads on after [DONE] until the server closes the connection, so
// a server that keeps it open would hang the call.
type doneReader struct {
	rc   io.ReadCloser
	line []byte // the start of the current line: enough to know [DONE]
	done bool
}

func (d *doneReader) Read(p []byte) (int, error) {
	if d.done {
		return 0, io.EOF
	}
	n, err := d.rc.Read(p)
	for i, b := range p[:n] {
		if b != '\n' {
			if len(d.line) < 32 {
				d.line = append(d.line, b)
			}
			continue
		}
		line := strings.TrimRight(string(d.line), "\r")
		d.line = d.line[:0]
		if line == "data: [DONE]" || line == "data:[DONE]" {
			d.done = true
			return i + 1, nil
		}
	}
	return n, err
}

// After [DONE] the rest of the body (a chunked body's terminator, which
// servers send at once) is read in the background before closing, so the
// connection goes back to the pool: closed unread, it is dropped, and
// the next chat dials the server again. A server that sends more than
// maxDrain or keeps the stream open past drainWait loses the connection.
const (
	maxDrain  = 4 << 10
	drainWait = 5 * time.Second
)

func (d *doneReader) Close() error {
	if !d.done {
		return d.rc.Close()
	}
	go func() {
		cut := time.AfterFunc(drainWait, func() { d.rc.Close() })
		defer cut.Stop()
		io.CopyN(io.Discard, d.rc, maxDrain)
		d.rc.Close()
	}()
	return nil
}

// errorMessage finds the message in an error response: OpenAI's
// {"error": {"message": ...}}, {"error": "..."}, vLLM's {"message": ...},
// FastAPI's {"detail": ...}, or else the text itself.
func errorMessage(body []byte, status string) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message json.RawMessage `json:"message"`
		}
		if len(v.Error) > 0 && json.Unmarshal(v.Error, &inner) == nil {
			if s := jsonText(inner.Message); s != "" {
				return s
			}
		}
		for _, raw := range []json.RawMessage{v.Error, v.Message, v.Detail} {
			if s := jsonText(raw); s != "" {
				return s
			}
		}
	}
	s := strings.TrimSpace(string(body))
	if s == "" {
		return status
	}
	const max = 500
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// jsonText is a JSON string's text, or any other non-null JSON value as
// written.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	return string(raw)
}

// retryAfter reads how long the server asked us to wait: OpenAI's
// retry-after-ms, or Retry-After in seconds or as an HTTP date. It is 0
// when the server did not say.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e9 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < 1e6 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// streamErrorPrefix starts the SDK's error for an {"error": ...} event in
// the middle of a stream.
const streamErrorPrefix = "received error while streaming: "

// fail turns an error from the SDK into an *llm.Error (or returns the
// caller's cancellation as it is).
func (p *Provider) fail(err error) error {
	if err == nil {
		return nil
	}
	var le *llm.Error
	if errors.As(err, &le) {
		return err
	}
	var ae *sdk.Error
	if errors.As(err, &ae) {
		// checkStatus catches error statuses first; this is a fallback.
		msg := ae.Message
		if msg == "" {
			msg = http.StatusText(ae.StatusCode)
		}
		e := llm.StatusError(p.name, ae.StatusCode, p.redact(msg), p.scrub(err))
		if ae.Response != nil {
			e.RetryAfter = retryAfter(ae.Response.Header, time.Now())
		}
		return e
	}
	if rest, ok := strings.CutPrefix(err.Error(), streamErrorPrefix); ok {
		return p.streamError(rest, err)
	}
	return llm.Classify(p.name, err)
}

// streamError is the error for an {"error": ...} event sent after the
// stream began (OpenRouter and OpenAI do this when the upstream model
// fails). A numeric HTTP code in it decides the kind; without one it is
// taken as the server's failure, which may pass.
func (p *Provider) streamError(detail string, err error) error {
	var v struct {
		Message json.RawMessage `json:"message"`
		Code    json.RawMessage `json:"code"`
	}
	msg := detail
	status := 0
	if json.Unmarshal([]byte(detail), &v) == nil {
		if s := jsonText(v.Message); s != "" {
			msg = s
		}
		var code int
		if json.Unmarshal(v.Code, &code) == nil && code >= 400 && code < 600 {
			status = code
		}
	}
	err = p.scrub(err)
	if status != 0 {
		return llm.StatusError(p.name, status, p.redact(msg), err)
	}
	return &llm.Error{Provider: p.name, Kind: llm.Overloaded, Message: p.redact(msg), Err: err}
}

// malformed is the error for an answer that could not be understood.
func (p *Provider) malformed(format string, args ...any) error {
	return &llm.Error{Provider: p.name, Kind: llm.Malformed, Err: fmt.Errorf(format, args...)}
}

// redact removes the API key from a message a server sent back.
func (p *Provider) redact(s string) string {
	if len(p.apiKey) < 4 {
		return s
	}
	return strings.ReplaceAll(s, p.apiKey, "[redacted]")
}

// scrub hides the API key in err's text, should a server have echoed it.
func (p *Provider) scrub(err error) error {
	if s := err.Error(); p.redact(s) != s {
		return &scrubbed{msg: p.redact(s), err: err}
	}
	return err
}

// scrubbed is an error whose text has the API key removed.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }
