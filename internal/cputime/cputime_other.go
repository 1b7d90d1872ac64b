//go:build !unix

package cputime

import "time"

// Process returns 0: CPU time is read on Unix only.
func Process() time.Duration { return 0 }

// Supported reports whether Process measures anything here.
const Supported = false
