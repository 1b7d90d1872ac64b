package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Event
	}{
		{"log", `{"version":"0","type":"log","level":"info","message":"Starting"}`,
			&Log{Level: "info", Message: "Starting"}},
		{"log default level", `{"version":"0","type":"log","message":"hi","fields":{"n":1}}`,
			&Log{Level: "info", Message: "hi", Fields: map[string]any{"n": 1.0}}},
		{"state_patch", `{"version":"0","type":"state_patch","patch":{"flags":{"torchLit":true}}}`,
			&StatePatch{Patch: map[string]any{"flags": map[string]any{"torchLit": true}}}},
		{"asset", `{"version":"0","type":"asset","assetId":"a1","kind":"image","mediaType":"image/png","path":"/tmp/a.png","metadata":{"w":2}}`,
			&Asset{AssetID: "a1", Kind: "image", MediaType: "image/png", Path: "/tmp/a.png", Metadata: map[string]any{"w": 2.0}}},
		{"ui_event", `{"version":"0","type":"ui_event","event":"narrative_choice","payload":{"choices":["a","b"]}}`,
			&UIEvent{Event: "narrative_choice", Payload: map[string]any{"choices": []any{"a", "b"}}}},
		{"error", `{"version":"0","type":"error","errorCode":"E1","errorMessage":"bad","details":{"x":true}}`,
			&ErrorEvent{ErrorCode: "E1", ErrorMessage: "bad", Details: map[string]any{"x": true}}},
		{"done ok", `{"version":"0","type":"done","ok":true,"summary":"Torch lit."}`,
			&Done{OK: true, Summary: "Torch lit."}},
		{"done not ok", `{"version":"0","type":"done","ok":false}`, &Done{}},
		{"envelope and unknown fields", `{"version":"0","type":"done","ok":true,"requestId":"r","timestamp":"2024-01-01T00:00:00Z","future":{"x":[1]}}`,
			&Done{Envelope: Envelope{RequestID: "r", Timestamp: "2024-01-01T00:00:00Z"}, OK: true}},
		{"unknown field of another type's name", `{"version":"0","type":"log","message":"m","patch":"not an object"}`,
			&Log{Level: "info", Message: "m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.line))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, line, code, msg string
	}{
		{"garbage", `hello world`, CodeInvalidJSON, "not valid JSON"},
		{"truncated", `{"version":"0","type":"log"`, CodeInvalidJSON, "not valid JSON"},
		{"array", `[1,2]`, CodeInvalidJSON, "one JSON object per line"},
		{"two objects", `{"version":"0","type":"done","ok":true} {}`, CodeInvalidJSON, "not valid JSON"},
		{"no version", `{"type":"log"}`, CodeBadVersion, `missing "version"`},
		{"number version", `{"version":0,"type":"log"}`, CodeBadVersion, `"version" is 0;`},
		{"version 1", `{"version":"1","type":"log"}`, CodeBadVersion, `version "0"`},
		{"no type", `{"version":"0"}`, CodeUnknownType, `missing "type"`},
		{"unknown type", `{"version":"0","type":"explode"}`, CodeUnknownType, `unknown event type "explode"; want one of log, state_patch`},
		{"type not string", `{"version":"0","type":7}`, CodeUnknownType, "unknown event type"},
		{"patch missing", `{"version":"0","type":"state_patch"}`, CodeInvalidEvent, `needs "patch"`},
		{"patch array", `{"version":"0","type":"state_patch","patch":[1]}`, CodeInvalidEvent, `field "patch" is a JSON array; want an object`},
		{"patch null", `{"version":"0","type":"state_patch","patch":null}`, CodeInvalidEvent, `needs "patch"`},
		{"asset missing", `{"version":"0","type":"asset","assetId":"a"}`, CodeInvalidEvent, "asset needs kind, mediaType, path"},
		{"asset bad mime", `{"version":"0","type":"asset","assetId":"a","kind":"image","mediaType":"png","path":"x"}`, CodeInvalidEvent, "not a MIME type"},
		{"ui_event no name", `{"version":"0","type":"ui_event","payload":{}}`, CodeInvalidEvent, `needs "event"`},
		{"done no ok", `{"version":"0","type":"done"}`, CodeInvalidEvent, `needs "ok"`},
		{"done ok string", `{"version":"0","type":"done","ok":"yes"}`, CodeInvalidEvent, `field "ok" is a JSON string; want true or false`},
		{"message number", `{"version":"0","type":"log","message":5}`, CodeInvalidEvent, `field "message" is a JSON number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.line))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Parse error = %v, want a *DecodeError", err)
			}
			if de.Code != tt.code || !strings.Contains(de.Msg, tt.msg) {
				t.Errorf("Parse error = %s %q, want %s containing %q", de.Code, de.Msg, tt.code, tt.msg)
			}
		})
	}
}

// The minimum viable tool of seed 001 §2.1.7.
const minimal = `{"version":"0","type":"log","level":"info","message":"Starting"}
{"version":"0","type":"state_patch","patch":{"flags":{"torchLit":true}}}
{"version":"0","type":"done","ok":true,"summary":"Torch lit."}
`

func TestDecoderMinimalTool(t *testing.T) {
	d := NewDecoder(strings.NewReader(minimal))
	var types []Type
	for {
		ev, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, ev.Type())
	}
	want := []Type{TypeLog, TypeStatePatch, TypeDone}
	if !reflect.DeepEqual(types, want) {
		t.Errorf("types = %v, want %v", types, want)
	}
	if d.Line() != 3 || d.InputOffset() != int64(len(minimal)) {
		t.Errorf("Line, InputOffset = %d, %d; want 3, %d", d.Line(), d.InputOffset(), len(minimal))
	}
	if _, err := d.Next(); err != io.EOF {
		t.Errorf("Next after EOF = %v, want io.EOF", err)
	}
}

func TestDecoderErrorsNameTheLine(t *testing.T) {
	long := `{"version":"0","type":"log","message":"` + strings.Repeat("x", 100) + `"}`
	tests := []struct {
		name  string
		input string
		max   int
		line  int
		code  string
	}{
		{"garbage on line 3", "\n" + `{"version":"0","type":"log","message":"a"}` + "\nnot json\n", 0, 3, CodeInvalidJSON},
		{"unknown type on line 2", `{"version":"0","type":"log","message":"a"}` + "\n" + `{"version":"0","type":"boom"}` + "\n", 0, 2, CodeUnknownType},
		{"too long, final line", `{"version":"0","type":"log","message":"a"}` + "\n" + long, 64, 2, CodeLineTooLong},
		{"too long, middle line", long + "\n" + `{"version":"0","type":"done","ok":true}` + "\n", 64, 1, CodeLineTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoderSize(strings.NewReader(tt.input), tt.max)
			var err error
			for err == nil {
				_, err = d.Next()
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error = %v, want *DecodeError", err)
			}
			if de.Line != tt.line || de.Code != tt.code {
				t.Errorf("error at line %d code %s (%v), want line %d code %s", de.Line, de.Code, de, tt.line, tt.code)
			}
			if _, again := d.Next(); again != err {
				t.Errorf("Next after error = %v, want the same error", again)
			}
		})
	}
}

func TestDecoderToleratesCRLFAndMissingFinalNewline(t *testing.T) {
	in := "{\"version\":\"0\",\"type\":\"log\",\"message\":\"a\"}\r\n  \r\n{\"version\":\"0\",\"type\":\"done\",\"ok\":true}"
	d := NewDecoder(strings.NewReader(in))
	n := 0
	for {
		_, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 {
		t.Errorf("read %d events, want 2", n)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	events := []Event{
		&Log{Envelope: Envelope{RequestID: "r1"}, Level: "warn", Message: "careful", Fields: map[string]any{"k": "v"}},
		&StatePatch{Patch: map[string]any{"a": map[string]any{"b": nil}}},
		&Asset{AssetID: "x", Kind: "audio", MediaType: "audio/ogg", Path: "data/x.ogg"},
		&UIEvent{Event: NarrativeChoice, Payload: map[string]any{"choices": []any{"Run", "Hide"}}},
		&ErrorEvent{ErrorCode: "E", ErrorMessage: "m"},
		&Done{OK: false, Summary: "no"},
		&Done{OK: true},
	}
	for _, e := range events {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte(`{"version":"0","type":"`+string(e.Type())+`"`)) {
			t.Errorf("%s marshals as %s; want version and type first", e.Type(), b)
		}
		got, err := Parse(b)
		if err != nil {
			t.Fatalf("Parse(%s): %v", b, err)
		}
		if !reflect.DeepEqual(got, e) {
			t.Errorf("round trip of %s = %#v, want %#v", b, got, e)
		}
	}
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.RequestID = "req-1"
	if err := w.Emit(&Log{Message: "Rolling 2d6", Level: LevelInfo}); err != nil {
		t.Fatal(err)
	}
	if err := w.Emit(&Done{Envelope: Envelope{RequestID: "own"}, OK: true, Summary: "Rolled 9"}); err != nil {
		t.Fatal(err)
	}
	want := `{"version":"0","type":"log","requestId":"req-1","level":"info","message":"Rolling 2d6"}
{"version":"0","type":"done","requestId":"own","ok":true,"summary":"Rolled 9"}
`
	if buf.String() != want {
		t.Errorf("Writer wrote\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestReadInput(t *testing.T) {
	in, err := ReadInput(strings.NewReader(`{"requestId":"r","tool":"roll","operation":"op","input":{"notation":"2d6"},"extra":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.Tool != "roll" || in.Input["notation"] != "2d6" || in.RequestID != "r" || in.Operation != "op" {
		t.Errorf("ReadInput = %+v", in)
	}
	if _, err := ReadInput(strings.NewReader(`[1]`)); err == nil {
		t.Error("ReadInput accepted an array")
	}
	if _, err := ReadInput(strings.NewReader(`{"input":"` + strings.Repeat("x", MaxInput) + `"}`)); err == nil {
		t.Error("ReadInput accepted input over MaxInput")
	}
}
