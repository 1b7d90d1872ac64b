package pdf

import (
	"context"
	"testing"
)

// BenchmarkExtract extracts the largest test PDF (mdsrd5.pdf, 531 pages).
func BenchmarkExtract(b *testing.B) {
	data := readTestPDF(b, "mdsrd5.pdf")
	e := extractor(b)
	pages := 0
	for b.Loop() {
		d, err := e.Extract(context.Background(), data, nil)
		if err != nil {
			b.Fatal(err)
		}
		pages += len(d.Pages)
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}
