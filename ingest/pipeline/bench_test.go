package pipeline

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

const srdEPUB = "../../../shared/testdata/epub/mdsrd5.epub"

// BenchmarkIngestEPUB is the end-to-end ingest of the SRD EPUB into a
// fresh library and index, every stage run (no checkpoints).
func BenchmarkIngestEPUB(b *testing.B) {
	data := readOrSkip(b, srdEPUB)
	ctx := context.Background()
	var pages int
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		e := newEnvB(b)
		o := e.opts("mdsrd5.epub", data)
		o.WorkDir = filepath.Join(b.TempDir(), "ingest")
		b.StartTimer()
		start := time.Now()
		res, err := Run(ctx, o)
		if err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		pages += res.Pages
	}
	b.ReportMetric(float64(pages)/total.Seconds(), "pages/s")
}
