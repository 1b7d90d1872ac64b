package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"
)

// FuzzDecode feeds arbitrary streams to a Decoder: it must never panic,
// must stop at the first error with a line number inside the stream, and
// every event it accepts must survive a marshal and parse unchanged.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(minimal))
	f.Add([]byte(`{"version":"0","type":"asset","assetId":"a","kind":"image","mediaType":"image/png; charset=x","path":"p"}` + "\n"))
	f.Add([]byte(`{"version":"0","type":"ui_event","event":"narrative_choice","payload":{"choices":["a"]}}` + "\n\n\n"))
	f.Add([]byte(`{"version":"0","type":"error","errorCode":"E","errorMessage":"m"}` + "\n" + `{"version":"0","type":"done","ok":false}`))
	f.Add([]byte(`{"version":"0","type":"nope"}`))
	f.Add([]byte("\xff\xfe{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 256
		// The one-pass decoding must agree with the careful one.
		for _, line := range bytes.Split(data, []byte("\n")) {
			fast, err1 := Parse(line)
			slow, err2 := parseCarefully(line)
			if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(fast, slow) {
				t.Fatalf("Parse(%q) = %#v, %v; carefully %#v, %v", line, fast, err1, slow, err2)
			}
		}
		d := NewDecoderSize(bytes.NewReader(data), max)
		lines := bytes.Count(data, []byte("\n")) + 1
		for {
			ev, err := d.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var de *DecodeError
				if !errors.As(err, &de) {
					t.Fatalf("error %v is not a *DecodeError", err)
				}
				if de.Line < 1 || de.Line > lines {
					t.Fatalf("error names line %d of a %d-line stream", de.Line, lines)
				}
				return
			}
			b, err := json.Marshal(ev)
			if err != nil {
				t.Fatalf("marshal %#v: %v", ev, err)
			}
			again, err := Parse(b)
			if err != nil {
				t.Fatalf("re-parse of %s: %v", b, err)
			}
			b2, _ := json.Marshal(again)
			if !bytes.Equal(b, b2) || !reflect.DeepEqual(again.Head(), ev.Head()) {
				t.Fatalf("round trip changed the event:\n%s\n%s", b, b2)
			}
		}
	})
}
