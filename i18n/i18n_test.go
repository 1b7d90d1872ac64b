package i18n

import "testing"

func TestFallback(t *testing.T) {
	c := MustLoad()
	tests := []struct {
		accept, id, want string
	}{
		{"de-CH,de;q=0.9", "error.internal", "Auf dem Server ist ein Fehler aufgetreten. Die Einzelheiten stehen in seinem Protokoll."},
		{"fr", "error.internal", "Something went wrong on the server. The details are in its log."},
		{"", "error.internal", "Something went wrong on the server. The details are in its log."},
		{"de", "no.such.message", "no.such.message"},
	}
	for _, tt := range tests {
		if got := c.For(tt.accept).T(tt.id, nil); got != tt.want {
			t.Errorf("For(%q).T(%q) = %q, want %q", tt.accept, tt.id, got, tt.want)
		}
	}
}
