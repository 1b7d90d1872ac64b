package access

import (
	"encoding/json"
	"testing"
)

func TestCanSee(t *testing.T) {
	tests := []struct {
		reader, content Level
		want            bool
	}{
		{Player, Player, true},
		{Player, GM, false},
		{Player, Trusted, false},
		{Trusted, Player, true},
		{Assistant, Trusted, true},
		{Assistant, GM, false},
		{GM, GM, true},
		{0, 0, true},
		{0, Trusted, false},
		{GM, 0, true},
	}
	for _, tt := range tests {
		if got := tt.reader.CanSee(tt.content); got != tt.want {
			t.Errorf("%v.CanSee(%v) = %v, want %v", tt.reader, tt.content, got, tt.want)
		}
	}
}

func TestTextRoundTrip(t *testing.T) {
	for _, l := range []Level{Player, Trusted, Assistant, GM} {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		var got Level
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("unmarshal %s: %v", b, err)
		}
		if got != l {
			t.Errorf("round trip %v: got %v", l, got)
		}
	}
	if _, err := Parse("admin"); err == nil {
		t.Error("Parse(admin) succeeded, want error")
	}
}
