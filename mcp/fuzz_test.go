package mcp

import (
	"encoding/json"
	"testing"
)

// FuzzArguments feeds arbitrary bytes as a tool call's arguments: they
// must be rejected with an error or come back as a JSON object that
// satisfies the schema, never panic.
func FuzzArguments(f *testing.F) {
	_, schema, err := inputSchema(json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","maxLength":50},"limit":{"type":"integer","minimum":1}},"required":["query"],"additionalProperties":false}`))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{`{"query":"grapple"}`, `{"query":"x","limit":3}`, ``, `null`, `[]`, `{"query":1}`, `{"query":"a","extra":true}`, `{"query":"a","limit":0.5}`, ` {"query":"\u00e9"} `, `{"query":"a"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		args, err := arguments(raw, schema)
		if err != nil {
			return
		}
		var v struct {
			Query *string `json:"query"`
			Limit *int    `json:"limit"`
		}
		if err := json.Unmarshal(args, &v); err != nil {
			t.Fatalf("accepted %q but it does not decode: %v", args, err)
		}
		if v.Query == nil {
			t.Fatalf("accepted %q without the required query", args)
		}
		if v.Limit != nil && *v.Limit < 1 {
			t.Fatalf("accepted %q with limit below the minimum", args)
		}
	})
}
