package modelgm

import (
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/world"
)

// check_schedule lists what is due within the window, what waits for a
// trigger and the clocks; not what fired, triggered or lies further off.
func TestSchedule(t *testing.T) {
	w := world.New(world.SystemD20)
	w.Time = 10 * world.Hour
	w.Locations["dock"] = &world.Location{ID: "dock", Name: "the Dock"}
	w.Scheduled = map[string]*world.ScheduledEvent{
		"soon":  {ID: "soon", At: w.Time + 90*world.Minute, Description: "SOON", Location: "dock"},
		"far":   {ID: "far", At: w.Time + 3*world.Day, Description: "FAR"},
		"fired": {ID: "fired", At: w.Time - world.Hour, Description: "FIRED", Fired: true},
	}
	w.Consequences = map[string]*world.Consequence{
		"c1": {ID: "c1", Trigger: "the player opens the crate", Description: "WAITING", Severity: "major"},
		"c2": {ID: "c2", Trigger: "talk", Description: "DONE", Triggered: true},
	}
	w.Clocks = map[string]*world.Clock{"k": {ID: "k", Name: "Smugglers' patience", Value: 2, Max: 6, OnFull: "they leave"}}
	for _, c := range []struct {
		within  string
		want    []string
		notWant []string
	}{
		{"", []string{"Day 1, 11:30 (in 1h 30m): SOON [at the Dock]", "(1 more scheduled later)", "when the player opens the crate: WAITING (major)",
			"Smugglers' patience: 2/6 (when full: they leave)"}, []string{"FAR", "FIRED", "DONE"}},
		{"1h", []string{"Scheduled events within 1h: none", "(2 more scheduled later)"}, []string{"SOON"}},
		{"1w", []string{"SOON", "FAR"}, []string{"FIRED"}},
	} {
		got, err := schedule(w, c.within)
		if err != nil {
			t.Fatalf("within %q: %v", c.within, err)
		}
		for _, s := range c.want {
			if !strings.Contains(got, s) {
				t.Errorf("within %q: no %q in\n%s", c.within, s, got)
			}
		}
		for _, s := range c.notWant {
			if strings.Contains(got, s) {
				t.Errorf("within %q: %q in\n%s", c.within, s, got)
			}
		}
	}
	if _, err := schedule(w, "soonish"); err == nil || !strings.Contains(err.Error(), "2h") {
		t.Errorf("a bad window: %v", err)
	}
}
