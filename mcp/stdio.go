package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLine is the longest message StdioTransport reads, as the SDK's.
const DefaultMaxLine = 16 << 20

// StdioTransport speaks MCP as one JSON-RPC message a line over a pair of
// streams, as the SDK's stdio transport does, except that a bad line does
// not end the session: the SDK's stops reading at the first line that is
// not JSON, so one stray write by a client took `hearth mcp` down. A line
// that is not JSON (or is too long) is answered with a -32700 parse error,
// JSON that is not a JSON-RPC message (batches included, which MCP
// 2025-06-18 dropped) with -32600 invalid request, and the next line is
// read as if nothing happened.
type StdioTransport struct {
	In  io.Reader // os.Stdin when nil
	Out io.Writer // os.Stdout when nil
	// MaxLine bounds a line's length in bytes; DefaultMaxLine when 0.
	MaxLine int
	// Logger hears of the lines refused, never their text; nil: nothing.
	Logger *slog.Logger
}

// Connect implements sdk.Transport. Closing the connection closes In and
// Out where they are io.Closers.
func (t *StdioTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{in: t.In, out: t.Out, log: t.Logger, lines: make(chan line), done: make(chan struct{})}
	if c.in == nil {
		c.in = os.Stdin
	}
	if c.out == nil {
		c.out = os.Stdout
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	limit := t.MaxLine
	if limit <= 0 {
		limit = DefaultMaxLine
	}
	go c.readLoop(limit)
	return c, nil
}

type line struct {
	text    []byte
	tooLong bool
	err     error // the input ended (io.EOF) or failed
}

type lineConn struct {
	in    io.Reader
	out   io.Writer
	log   *slog.Logger
	lines chan line

	writeMu sync.Mutex // one message a Write, whole

	closeOnce sync.Once
	done      chan struct{}
}

// readLoop reads lines until the input ends. A goroutine, so that Read
// can return on Close or a cancelled context while a read of stdin blocks.
func (c *lineConn) readLoop(limit int) {
	r := bufio.NewReaderSize(c.in, 64<<10)
	send := func(l line) bool {
		select {
		case c.lines <- l:
			return true
		case <-c.done:
			return false
		}
	}
	for {
		text, tooLong, err := readLine(r, limit)
		if len(bytes.TrimSpace(text)) > 0 || tooLong {
			if !send(line{text: text, tooLong: tooLong}) {
				return
			}
		}
		if err != nil {
			send(line{err: err})
			return
		}
	}
}

// readLine reads up to and including the next '\n', keeping at most limit
// bytes of it: the rest of a longer line is read and dropped.
func readLine(r *bufio.Reader, limit int) (text []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong && len(text)+len(chunk) > limit {
			tooLong, text = true, nil
		}
		if !tooLong {
			text = append(text, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return text, tooLong, err
		}
	}
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.done:
			return nil, io.EOF
		case l := <-c.lines:
			if l.err != nil {
				return nil, l.err
			}
			msg, code, why := decode(l)
			if msg != nil {
				return msg, nil
			}
			c.log.WarnContext(ctx, "mcp stdio: refused a line", "code", code, "reason", why, "bytes", len(l.text))
			if err := c.reply(l.text, code, why); err != nil {
				return nil, err
			}
		}
	}
}

// decode reads one line as a JSON-RPC message, or says which error answers
// it.
func decode(l line) (msg jsonrpc.Message, code int64, why string) {
	if l.tooLong {
		return nil, jsonrpc.CodeParseError, "parse error: the message is longer than this server reads"
	}
	text := bytes.TrimSpace(l.text)
	if !json.Valid(text) {
		return nil, jsonrpc.CodeParseError, "parse error: the line is not JSON"
	}
	if text[0] == '[' {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message a line"
	}
	msg, err := jsonrpc.DecodeMessage(text)
	if err != nil {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	return msg, 0, ""
}

// reply answers a refused line with a JSON-RPC error, with the line's id
// when it has a usable one and null otherwise, as JSON-RPC 2.0 says.
func (c *lineConn) reply(text []byte, code int64, why string) error {
	id := json.RawMessage("null")
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if code != jsonrpc.CodeParseError && json.Unmarshal(text, &probe) == nil && len(probe.ID) > 0 {
		var v any
		if json.Unmarshal(probe.ID, &v) == nil {
			if _, err := jsonrpc.MakeID(v); err == nil && v != nil {
				id = probe.ID
			}
		}
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: why}})
	if err != nil {
		return fmt.Errorf("encoding an error reply: %w", err)
	}
	return c.writeLine(b)
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	return c.writeLine(b)
}

func (c *lineConn) writeLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.done:
		return io.EOF
	default:
	}
	_, err := c.out.Write(append(b, '\n'))
	return err
}

func (c *lineConn) Close() error {
	var errs []error
	c.closeOnce.Do(func() {
		close(c.done)
		if cl, ok := c.in.(io.Closer); ok {
			errs = append(errs, cl.Close())
		}
		if cl, ok := c.out.(io.Closer); ok && any(c.out) != any(c.in) {
			errs = append(errs, cl.Close())
		}
	})
	return errors.Join(errs...)
}

// SessionID implements sdk.Connection: stdio has one session, unnamed.
func (c *lineConn) SessionID() string { return "" }
