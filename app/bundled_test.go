package app

import (
	"context"
	"log/slog"
	"testing"
)

// The bundled SRD is known as a d20 pack, so a Traveller chat leaves it out.
func TestBundledSystems(t *testing.T) {
	a := &App{log: slog.New(slog.DiscardHandler)}
	if got := a.bundledSystems(context.Background()); got["srd51"] != "d20" {
		t.Fatalf("bundled systems %v", got)
	}
}
