package openai

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// chunkSamples are chunks as servers send them, and odd ones.
var chunkSamples = []string{
	// OpenAI
	`{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_0d4c3a5a4a","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" jump drive"},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21,"prompt_tokens_details":{"cached_tokens":0}}}`,
	// vLLM, llama.cpp, Ollama's OpenAI endpoint
	`{"id":"cmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Dé 🎲"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":5,"total_tokens":6,"completion_tokens":1}}`,
	`{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"x","reasoning_content":null}}],"created":1,"id":"c","model":"m","system_fingerprint":"b1","object":"chat.completion.chunk","timings":{"prompt_n":1,"predicted_per_second":41.5}}`,
	`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"dice_roll","arguments":"{\"formula\":"}}]}}]}`,
	`{"error":{"message":"overloaded","type":"server_error"}}`,
	`{"error":null,"choices":[{"index":0,"delta":{"content":"a"}}]}`,
	// Escapes, odd keys and values
	`{"choices":[{"index":0,"delta":{"content":"line\nbreak \"quoted\" \u00e9 \ud83c\udfb2"}}]}`,
	`{"Choices":[{"index":0,"delta":{"content":"a"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a"}}],"choices":[{"index":1}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a","CONTENT":"b"}}]}`,
	`{"choices":[{"index":1.0,"delta":{"content":"a"}}]}`,
	`{"choices":[{"index":-0,"delta":null,"finish_reason":"length"}],"x":[1,-2.5e+3,true,false,null,{"y":[]}]}`,
	`{"choices":null}`,
	`{"choices":[]}`,
	`{"choices":[null]}`,
	`{"choices":[{"index":0,"delta":{"content":5}}]}`,
	"{\"choices\":[{\"delta\":{\"content\":\"bad \xff utf-8\"}}]}",
	` { "choices" : [ { "index" : 2 , "delta" : { "content" : "spaced" } } ] } `,
	`{"choices":[{"index":0}]} x`,
	`{"choices":[{"index":0}]`,
	`{"x":01}`,
	`{}`,
	// Usage, odd ones
	`{"choices":[],"usage":{"prompt_tokens":null,"completion_tokens":3,"prompt_tokens_details":null,"completion_tokens_details":{"reasoning_tokens":0}}}`,
	`{"usage":{}}`,
	`{"usage":{"prompt_tokens":1,"Prompt_Tokens":2}}`,
	`{"usage":{"prompt_tokens":1,"prompt_tokens":2}}`,
	`{"usage":{"prompt_tokens":1},"usage":{"completion_tokens":2}}`,
	`{"usage":{"prompt_tokens":1.5}}`,
	`{"usage":{"prompt_tokens":"1"}}`,
	`{"usage":{"prompt_tokens":99999999999999999999}}`,
	`{"usage":{"prompt_tokens":-3,"prompt_tokens_details":{"cached_tokens":2,"CACHED_TOKENS":1,"audio_tokens":0}}}`,
	`{"usage":{"prompt_tokens_details":{"cached_tokens":7},"prompt_tokens_details":{}}}`,
	`{"usage":[]}`,
	`{"usage":{"prompt_tokens":1}`,
}

// The fast path reads the text and usage chunks of every server above
// (and leaves the rest to encoding/json).
func TestTextChunksTakeTheFastPath(t *testing.T) {
	for _, s := range chunkSamples[:6] {
		var c streamChunk
		if !decodeTextChunk([]byte(s), &c, nil) {
			t.Errorf("a text or usage chunk was left to encoding/json: %s", s)
		}
	}
	for _, s := range chunkSamples {
		checkChunk(t, []byte(s))
	}
}

// FuzzDecodeChunk holds decodeChunk to encoding/json: the same chunk, or
// an error where encoding/json gives one.
func FuzzDecodeChunk(f *testing.F) {
	for _, s := range chunkSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkChunk(t, data) })
}

func checkChunk(t *testing.T, data []byte) {
	t.Helper()
	var want, got streamChunk
	wantErr := json.Unmarshal(data, &want)
	err := decodeChunk(data, &got)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%q: decodeChunk said %v, encoding/json %v", data, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decodeChunk read %+v, encoding/json %+v", data, got, want)
	}
	// The same with the content appended to a stream's text.
	var text streamText
	var inText streamChunk
	if _, err := decodeChunkText(data, &inText, &text); (err == nil) != (wantErr == nil) {
		t.Fatalf("%q: decodeChunkText said %v, encoding/json %v", data, err, wantErr)
	} else if err == nil && !reflect.DeepEqual(inText, want) {
		t.Fatalf("%q: decodeChunkText read %+v, encoding/json %+v", data, inText, want)
	}
}

// A stream's text chunks allocate nothing but the growth of the stream's
// text (their content is appended to it), the content handed out stays
// as it was while later chunks are read, and the text is their content.
func TestTextChunkAllocatesNothing(t *testing.T) {
	var c streamChunk
	var text streamText
	var kept []string
	var all strings.Builder
	for i := range 2000 {
		c.reset()
		data := fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"tok%d "},"finish_reason":null}]}`, i)
		if i%7 == 3 { // one read by encoding/json: nothing appended
			data = fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":"tok%d \u0041"}}]}`, i)
		}
		inText, err := decodeChunkText([]byte(data), &c, &text)
		if err != nil {
			t.Fatal(err)
		}
		if inText != (i%7 != 3) {
			t.Fatalf("chunk %d: in the text %v", i, inText)
		}
		kept = append(kept, c.Choices[0].Delta.Content)
		if inText {
			all.WriteString(c.Choices[0].Delta.Content)
		}
	}
	for i, s := range kept {
		want := fmt.Sprintf("tok%d ", i)
		if i%7 == 3 {
			want += "A"
		}
		if s != want {
			t.Fatalf("token %d reads %q after later chunks, want %q", i, s, want)
		}
	}
	if text.String() != all.String() {
		t.Fatalf("the stream's text is not its text chunks' content")
	}
	data := []byte(chunkSamples[1])
	if n := testing.AllocsPerRun(1000, func() {
		c.reset()
		if _, err := decodeChunkText(data, &c, &text); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("a text chunk costs %v allocations on average, want 0", n)
	}
}

// A stream's text grows by doubling: an answer of 16 KB in 8-byte tokens
// takes nine buffers from 64 bytes (append's own growth took about
// twenty, three times the text in all), and every token handed out
// still reads as it did.
func TestStreamTextGrowsByDoubling(t *testing.T) {
	tok := []byte("abcdefg ")
	var views []string
	n := testing.AllocsPerRun(1, func() {
		var text streamText
		views = views[:0]
		for range 16 << 10 / len(tok) {
			views = append(views, text.add(tok))
		}
	})
	if n > 9 {
		t.Errorf("16 KB of text took %v allocations, want at most 9", n)
	}
	for i, v := range views {
		if v != string(tok) {
			t.Fatalf("token %d reads %q", i, v)
		}
	}
}

// BenchmarkChunkDecode decodes a text chunk as OpenAI sends it.
func BenchmarkChunkDecode(b *testing.B) {
	data := []byte(chunkSamples[1])
	for _, bc := range []struct {
		name   string
		decode func([]byte, *streamChunk) error
	}{
		{"encoding-json", func(d []byte, c *streamChunk) error { return json.Unmarshal(d, c) }},
		{"provider", decodeChunk},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				var c streamChunk
				if err := bc.decode(data, &c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Chunks decoded one after another into the same value read as if each
// were decoded into a fresh one, and a text chunk then allocates only its
// text.
func TestChunkReuse(t *testing.T) {
	var c streamChunk
	for _, s := range chunkSamples {
		c.reset()
		var want streamChunk
		wantErr := json.Unmarshal([]byte(s), &want)
		if err := decodeChunk([]byte(s), &c); (err == nil) != (wantErr == nil) {
			t.Fatalf("%s: %v, encoding/json %v", s, err, wantErr)
		} else if err != nil {
			continue
		}
		if len(want.Choices) == 0 && len(c.Choices) == 0 {
			want.Choices, c.Choices = nil, nil // empty either way
		}
		if !reflect.DeepEqual(c, want) {
			t.Fatalf("%s: after earlier chunks read %+v, want %+v", s, c, want)
		}
	}
	data := []byte(chunkSamples[1])
	if n := testing.AllocsPerRun(100, func() {
		c.reset()
		if err := decodeChunk(data, &c); err != nil {
			t.Fatal(err)
		}
	}); n > 1 {
		t.Errorf("a text chunk costs %v allocations, want at most 1 (its text)", n)
	}
}
