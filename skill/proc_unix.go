//go:build unix

package skill

import (
	"os/exec"
	"syscall"
	"time"
)

func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killGroup(pgid int) {
	syscall.Kill(-pgid, syscall.SIGKILL)
}

// reapGroup waits until no process of the group is left, reaping those
// that were re-parented to us, for at most limit. It reports whether the
// group is gone.
func reapGroup(pgid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	delay := 20 * time.Microsecond
	for {
		var ws syscall.WaitStatus
		for {
			pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
		if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		// A member may have forked while the group was being killed.
		killGroup(pgid)
		time.Sleep(delay)
		delay = min(2*delay, 10*time.Millisecond)
	}
}

func signalOf(ee *exec.ExitError) string {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
