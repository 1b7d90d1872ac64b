package protocol

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// BenchmarkDecode measures NDJSON parse throughput on a mix of the six
// event types, the way a skill's stdout looks.
func BenchmarkDecode(b *testing.B) {
	var buf bytes.Buffer
	const n = 10000
	for i := range n {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&buf, `{"version":"0","type":"log","level":"info","message":"step %d of the ritual","fields":{"i":%d}}`+"\n", i, i)
		case 1:
			fmt.Fprintf(&buf, `{"version":"0","type":"state_patch","patch":{"player":{"stats":{"health":%d}},"flags":{"f%d":true}}}`+"\n", i%100, i)
		case 2:
			fmt.Fprintf(&buf, `{"version":"0","type":"ui_event","event":"narrative_choice","payload":{"choices":["Run","Hide","Fight %d"]}}`+"\n", i)
		case 3:
			fmt.Fprintf(&buf, `{"version":"0","type":"asset","assetId":"a%d","kind":"image","mediaType":"image/png","path":"data/a%d.png"}`+"\n", i, i)
		case 4:
			fmt.Fprintf(&buf, `{"version":"0","type":"error","errorCode":"E%d","errorMessage":"a recoverable problem"}`+"\n", i)
		}
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d := NewDecoder(bytes.NewReader(data))
		for {
			_, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
