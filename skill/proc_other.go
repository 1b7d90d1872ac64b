//go:build !unix

package skill

import (
	"os/exec"
	"time"
)

// Skills need process groups; elsewhere only the script itself is killed.

func setGroup(cmd *exec.Cmd) {}

func killGroup(pgid int) {}

func reapGroup(pgid int, limit time.Duration) bool { return true }

func signalOf(ee *exec.ExitError) string { return "" }
