//go:build !linux

package skill

// BecomeSubreaper does nothing on this system: orphaned processes of a
// skill are reaped by init.
func BecomeSubreaper() error { return nil }
