package mcp_test

import (
	"context"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallTool measures a whole tools/call round trip through the
// server (argument check, GM context, result) over an in-memory pipe and
// over streamable HTTP on loopback.
func BenchmarkCallTool(b *testing.B) {
	run := func(b *testing.B, cs *sdk.ClientSession) {
		ctx := context.Background()
		// Per session: the client writes the negotiated protocol version
		// into the params' _meta, so they must not be shared.
		params := &sdk.CallToolParams{Name: "document_search", Arguments: map[string]any{"query": "grapple", "limit": 5}}
		b.ReportAllocs()
		for b.Loop() {
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				b.Fatalf("CallTool: %v %v", res, err)
			}
		}
	}
	b.Run("in-memory", func(b *testing.B) {
		f := newFixture(b)
		ct, st := sdk.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { _ = f.srv.Run(ctx, st) }()
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		run(b, cs)
	})
	b.Run("streamable-http", func(b *testing.B) {
		f := newFixture(b)
		ts := httptest.NewServer(f.srv.Handler())
		defer ts.Close()
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: ts.URL}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		run(b, cs)
	})
}
