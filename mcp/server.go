package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/auth"
)

// DefaultInstructions are sent to clients when Options.Instructions is empty.
const DefaultInstructions = "Hearth is a self-hosted AI game master for tabletop role-playing games. " +
	"These tools give you game-master access: search and read the GM's rulebooks and campaign documents, " +
	"and inspect or play the game sessions on this server. Content you receive may include GM-only secrets; " +
	"do not reveal them to players unless the GM asks you to."

// sessionIdle closes streamable HTTP sessions nobody has used for this
// long, so that abandoned clients do not hold memory forever; a client that
// comes back gets 404 and, as the protocol says, starts a new session.
const sessionIdle = 2 * time.Hour

// Options configures a Server.
type Options struct {
	// Tools are exposed as MCP tools: internal ones (Run set) only, since
	// External tools run in a browser that an MCP client does not have.
	Tools []agent.Tool
	// Game, when set, adds game_list_sessions, game_state and game_act.
	Game Game
	// Version is reported to clients as the server's version.
	Version string
	// Instructions tell the client's model what the server is for;
	// DefaultInstructions when empty.
	Instructions string
	// Logger receives server activity; nothing is logged when nil. Over
	// stdio it must not write to stdout.
	Logger *slog.Logger
	// DisableLocalhostProtection turns off the SDK's DNS-rebinding guard,
	// which refuses requests that arrive on a loopback address with a
	// non-loopback Host header. Set it only behind a reverse proxy on the
	// same machine that forwards the public Host, with auth in front.
	DisableLocalhostProtection bool
}

// Server is an MCP server over Hearth's tools. It is safe for concurrent
// use by many sessions on any mix of transports.
type Server struct {
	srv    *sdk.Server
	log    *slog.Logger
	sdkLog *slog.Logger
	opts   Options
}

// New checks the tools (names, duplicates, schemas) and builds the server.
func New(o Options) (*Server, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// The SDK logs session ids, at INFO too; they open sessions, so they
	// are dropped.
	sdkLog := slog.New(quietIDs{log.Handler()})
	if o.Instructions == "" {
		o.Instructions = DefaultInstructions
	}
	if o.Version == "" {
		o.Version = hearth.Version().String()
	}
	s := &Server{log: log, sdkLog: sdkLog, opts: o}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "hearth", Title: "Hearth", Version: o.Version}, &sdk.ServerOptions{
		Instructions: o.Instructions,
		Logger:       sdkLog,
		// Only tools: no logging capability, which the SDK advertises by default.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
	})

	seen := map[string]bool{}
	if o.Game != nil {
		for _, name := range gameToolNames {
			seen[name] = true
		}
	}
	type prepared struct {
		tool   agent.Tool
		schema *jsonschema.Resolved
		raw    json.RawMessage
	}
	var tools []prepared
	for i, t := range o.Tools {
		if t.External {
			continue
		}
		if err := checkName(t.Name); err != nil {
			return nil, fmt.Errorf("tool %d (%q): %w", i, t.Name, err)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("tool %q is defined twice (the game tools' names are taken when a Game is set)", t.Name)
		}
		seen[t.Name] = true
		if t.Run == nil {
			return nil, fmt.Errorf("tool %q is neither external nor has a Run function", t.Name)
		}
		raw, resolved, err := inputSchema(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		tools = append(tools, prepared{t, resolved, raw})
	}
	// The SDK panics on tools it finds malformed; everything it checks was
	// checked above, so a panic here is a bug, reported rather than fatal.
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("registering tools: %v", p)
			}
		}()
		for _, p := range tools {
			s.srv.AddTool(&sdk.Tool{Name: p.tool.Name, Description: p.tool.Description, InputSchema: p.raw},
				s.agentHandler(p.tool, p.schema))
		}
		if o.Game != nil {
			s.addGameTools(o.Game)
		}
		return nil
	}()
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Handler serves the streamable HTTP transport, the current MCP transport;
// mount it at the configured path (default /mcp). Sessions belong to the
// returned handler, so call it once. Each session belongs to the user who
// opened it (see owner.go): a request from anyone else naming it gets 403.
func (s *Server) Handler() http.Handler {
	return s.bindStreamable(sdk.NewStreamableHTTPHandler(s.server, &sdk.StreamableHTTPOptions{
		Logger:                     s.sdkLog,
		SessionTimeout:             sessionIdle,
		DisableLocalhostProtection: s.opts.DisableLocalhostProtection,
	}))
}

// SSEHandler serves the HTTP+SSE transport of protocol version 2024-11-05,
// for older clients; mount it at its own path (e.g. /mcp/sse) without
// stripping the prefix, since the message endpoint it announces is the
// request's own path. Call it once, like Handler. Sessions are bound to
// their users as with Handler.
func (s *Server) SSEHandler() http.Handler {
	return s.bindSSE(sdk.NewSSEHandler(s.server, &sdk.SSEOptions{
		DisableLocalhostProtection: s.opts.DisableLocalhostProtection,
	}))
}

func (s *Server) server(*http.Request) *sdk.Server { return s.srv }

// Run serves one session over t, for example &sdk.StdioTransport{} for
// `hearth mcp`, until the client disconnects or ctx ends; both are a
// normal end and return nil.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	// Not sdk.Server.Run, which logs a normal shutdown as an error.
	ss, err := s.srv.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("starting the MCP session: %w", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-ctx.Done():
		_ = ss.Close()
		<-ended
		return nil
	case err := <-ended:
		if err == nil || errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed) {
			return nil
		}
		return fmt.Errorf("MCP session: %w", err)
	}
}

// agentHandler adapts an internal agent tool to the SDK's low-level tool
// handler: arguments are checked against the tool's schema, and failures
// become error results for the client's model.
func (s *Server) agentHandler(t agent.Tool, schema *jsonschema.Resolved) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		res, err := s.runTool(ctx, t, schema, req.Params.Arguments)
		if err != nil {
			return errorResult(err), nil
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Content}}}, nil
	}
}

func (s *Server) runTool(ctx context.Context, t agent.Tool, schema *jsonschema.Resolved, raw json.RawMessage) (res agent.Result, err error) {
	defer s.finish(ctx, t.Name, time.Now(), &err)
	args, err := arguments(raw, schema)
	if err != nil {
		return res, err
	}
	return t.Run(asGM(ctx), args)
}

// finish, deferred by every tool call, logs it, turns a panic into the
// call's error, so one broken tool cannot take the server down, and puts
// the error in the words the client may see (toolError).
func (s *Server) finish(ctx context.Context, tool string, start time.Time, err *error) {
	if p := recover(); p != nil {
		s.log.ErrorContext(ctx, "mcp tool panicked", "tool", tool, "panic", p, "stack", string(debug.Stack()))
		*err = fmt.Errorf("tool %s panicked: %v", tool, p)
	}
	if *err == nil {
		s.log.DebugContext(ctx, "mcp tool", "tool", tool, "duration", time.Since(start))
		return
	}
	level := slog.LevelInfo
	if hearth.ErrorCode(*err) == hearth.Internal {
		level = slog.LevelError
	}
	s.log.Log(ctx, level, "mcp tool failed", "tool", tool, "duration", time.Since(start), "error", *err)
	*err = toolError(*err)
}

// ToolError is a failed tool call as an MCP client sees it: the text of
// the error result is "code: message", with the message safe to show
// (hearth.ErrorMessage). This is the one place errors meet MCP.
type ToolError struct {
	Code    hearth.Code
	Message string
}

func (e *ToolError) Error() string { return string(e.Code) + ": " + e.Message }

func toolError(err error) error {
	var te *ToolError
	if errors.As(err, &te) {
		return te
	}
	return &ToolError{Code: hearth.ErrorCode(err), Message: hearth.ErrorMessage(err)}
}

// about puts what a tool was doing before err's safe message, keeping its
// code; err stays the cause, for the log.
func about(err error, format string, args ...any) error {
	return &hearth.Error{Code: hearth.ErrorCode(err), Message: fmt.Sprintf(format, args...) + ": " + hearth.ErrorMessage(err), Err: err}
}

func errorResult(err error) *sdk.CallToolResult {
	res := &sdk.CallToolResult{}
	res.SetError(toolError(err))
	return res
}

// asGM gives a call without a user the game master's access (seed 000
// §4.7); a user the HTTP auth middleware put on the session is kept.
func asGM(ctx context.Context) context.Context {
	if _, ok := auth.UserFrom(ctx); ok {
		return ctx
	}
	return auth.WithUser(ctx, auth.User{ID: "mcp", Name: "MCP client", Role: access.GM})
}

// checkName applies the MCP tool-name rules (1–128 of A–Z a–z 0–9 _ - .),
// which the SDK only logs.
func checkName(name string) error {
	if name == "" {
		return errors.New("tool name is empty")
	}
	if len(name) > 128 {
		return fmt.Errorf("tool name is %d bytes long; MCP allows at most 128", len(name))
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.'
		if !ok {
			return fmt.Errorf("tool name has %q; MCP allows only letters, digits, '_', '-' and '.'", r)
		}
	}
	return nil
}

// inputSchema checks a tool's parameter schema and resolves it for
// validating arguments. No parameters means an object with any content.
func inputSchema(params json.RawMessage) (json.RawMessage, *jsonschema.Resolved, error) {
	raw := bytes.TrimSpace(params)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte(`{"type":"object"}`)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, nil, fmt.Errorf("parameters are not a JSON Schema object: %w", err)
	}
	if s.Type != "object" {
		got := s.Type
		if got == "" {
			got = strings.Join(s.Types, ", ")
		}
		return nil, nil, fmt.Errorf(`parameters schema must have "type": "object" (MCP tools take an object), got type %q`, got)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, nil, fmt.Errorf("parameters schema: %w", err)
	}
	return json.RawMessage(raw), resolved, nil
}

// arguments returns a call's arguments as a JSON object that satisfies the
// tool's schema. Absent arguments are an empty object.
func arguments(raw json.RawMessage, schema *jsonschema.Resolved) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, hearth.Errorf(hearth.Invalid, "arguments are not valid JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, hearth.Errorf(hearth.Invalid, "arguments must be a JSON object")
	}
	if err := schema.Validate(v); err != nil {
		return nil, hearth.Errorf(hearth.Invalid, "arguments do not match the tool's input schema: %v", err)
	}
	return raw, nil
}
