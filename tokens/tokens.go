package tokens

import (
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
)

// Counter counts cl100k tokens. It is safe for concurrent use.
type Counter struct {
	enc *tiktoken.Tiktoken
}

var shared = sync.OnceValues(func() (*Counter, error) {
	// SetBpeLoader is process-wide in tiktoken-go; it is set once, here,
	// before the only encoding Hearth loads.
	tiktoken.SetBpeLoader(loader{})
	enc, err := tiktoken.GetEncoding(tiktoken.MODEL_CL100K_BASE)
	if err != nil {
		return nil, fmt.Errorf("load the cl100k token encoding: %w", err)
	}
	return &Counter{enc: enc}, nil
})

// CL100K returns the cl100k counter, loading the encoding on first use
// (about 50 ms of CPU); later calls return the same counter.
func CL100K() (*Counter, error) { return shared() }

// Count returns the number of tokens in s.
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	return len(c.enc.EncodeOrdinary(s))
}

// Truncate returns the longest prefix of s that fits in max tokens, cut at a
// token boundary, and its token count.
func (c *Counter) Truncate(s string, max int) (string, int) {
	if max <= 0 {
		return "", 0
	}
	toks := c.enc.EncodeOrdinary(s)
	if len(toks) <= max {
		return s, len(toks)
	}
	return c.enc.Decode(toks[:max]), max
}
