package skill

// tail keeps the last max bytes written to it, for a script's stderr: a
// script may write as much as it likes there, and what matters for
// diagnostics is how it ended.
type tail struct {
	max     int
	buf     []byte
	dropped int64
}

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.max {
		t.dropped += int64(len(t.buf) + len(p) - t.max)
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

func (t *tail) String() string {
	if t.dropped > 0 {
		return "…" + string(t.buf)
	}
	return string(t.buf)
}
