//go:build unix

package streambench

import "syscall"

// alive reports whether a process with this id exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }
