package pdf

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkExtract extracts each test PDF; mdsrd5.pdf (531 pages) is the
// one the speed targets are about. pages/s is wall time, pages/cpu-s
// divides by the process's CPU time (all goroutines, GC included).
func BenchmarkExtract(b *testing.B) {
	benchExtract(b, extractor(b))
}

// BenchmarkExtractText is BenchmarkExtract without images (MaxImages
// -1): text, outline and structure, what pdftotext is compared with.
func BenchmarkExtractText(b *testing.B) {
	e, err := Open(context.Background(), Options{CacheDir: extractor(b).opts.CacheDir, MaxImages: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	benchExtract(b, e)
}

func benchExtract(b *testing.B, e *Extractor) {
	for _, name := range []string{"mdsrd5.pdf", "Halberds-and-Helmets-Ref-Guide.pdf", "minimal-opend6-srd.pdf"} {
		b.Run(name, func(b *testing.B) {
			data := readTestPDF(b, name)
			pages := 0
			cpu0 := cpuTime()
			var perOp []time.Duration // CPU of each extraction
			for b.Loop() {
				c := cpuTime()
				d, err := e.Extract(context.Background(), data, nil)
				if err != nil {
					b.Fatal(err)
				}
				perOp = append(perOp, cpuTime()-c)
				pages += len(d.Pages)
			}
			b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(pages)/cpu.Seconds(), "pages/cpu-s")
			}
			slices.Sort(perOp)
			b.ReportMetric(float64(perOp[len(perOp)/2].Microseconds())/1000, "cpu-ms-p50")
			b.ReportMetric(float64(perOp[(len(perOp)*99)/100].Microseconds())/1000, "cpu-ms-p99")
		})
	}
}
