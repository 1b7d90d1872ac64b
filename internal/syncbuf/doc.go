// Package syncbuf is a bytes.Buffer that goroutines may share: the sink
// tests give a server's logger or a terminal's output, read while the
// server's goroutines still write.
package syncbuf
