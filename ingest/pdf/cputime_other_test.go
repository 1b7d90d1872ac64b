//go:build !unix

package pdf

import "time"

// cpuTime is not measured here; the benchmark then reports wall time only.
func cpuTime() time.Duration { return 0 }
