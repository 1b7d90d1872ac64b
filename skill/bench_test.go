package skill

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkInvocationOverhead measures what Run adds to a script's own
// run time: each iteration runs a trivial compiled Go skill once bare
// (os/exec with its stdin and stdout) and once through Run, alternately,
// and reports the medians and their difference.
func BenchmarkInvocationOverhead(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "trivial")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/trivial").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	input := []byte(`{"requestId":"r","tool":"trivial","input":{"notation":"2d6"}}` + "\n")
	var bare, run []time.Duration
	for b.Loop() {
		start := time.Now()
		cmd := exec.Command(bin)
		cmd.Stdin = bytes.NewReader(input)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		bare = append(bare, time.Since(start))

		start = time.Now()
		if _, err := Run(b.Context(), Invocation{Script: bin, Input: input, AssetRoots: nil}); err != nil {
			b.Fatal(err)
		}
		run = append(run, time.Since(start))
	}
	pb, pr := median(bare), median(run)
	b.ReportMetric(ms(pb), "bare-p50-ms")
	b.ReportMetric(ms(pr), "run-p50-ms")
	b.ReportMetric(ms(pr-pb), "overhead-p50-ms")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
