package content

import (
	"context"
	"testing"
)

func TestLoadTiny(t *testing.T) {
	c, err := Load(context.Background(), "../game/testdata/tiny")
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.NewState()
	if err != nil {
		t.Fatal(err)
	}
	if w.Player != "wren" || w.PC().Location != "gate" || w.PC().Stats["grit"] != 2 || w.Items["sword"].Name != "Longsword" {
		t.Errorf("state: player %s at %s grit %d sword %+v", w.Player, w.PC().Location, w.PC().Stats["grit"], w.Items["sword"])
	}
}
