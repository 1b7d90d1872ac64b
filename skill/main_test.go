package skill

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	// As cmd/hearth does: orphans of scripts become ours, so Run can reap
	// them and the leak checks below are exact.
	if err := BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "warning:", err)
	}
	os.Exit(m.Run())
}
