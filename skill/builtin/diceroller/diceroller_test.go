package diceroller

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/skill/protocol"
)

func roll(t *testing.T, stdin string) ([]protocol.Event, int) {
	t.Helper()
	var out, errs bytes.Buffer
	code := Run(strings.NewReader(stdin), &out, &errs)
	var evs []protocol.Event
	d := protocol.NewDecoder(&out)
	for {
		ev, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the skill broke the protocol: %v\n%s", err, out.String())
		}
		evs = append(evs, ev)
	}
	return evs, code
}

func TestRollSpeaksTheProtocol(t *testing.T) {
	evs, code := roll(t, `{"requestId":"r","tool":"roll","input":{"formula":"1d20 + player.stats.dexterity","seed":7,"refs":{"player":{"stats":{"dexterity":3}}}}}`)
	if code != 0 || len(evs) != 4 {
		t.Fatalf("exit %d, events %v", code, evs)
	}
	last := evs[2].(*protocol.StatePatch).Patch["lastRoll"].(map[string]any)
	rolls := last["rolls"].([]any)
	if len(rolls) != 1 || last["result"].(float64) != rolls[0].(float64)+3 {
		t.Errorf("lastRoll = %v", last)
	}
	if d := evs[3].(*protocol.Done); !d.OK || d.Head().RequestID != "r" {
		t.Errorf("done = %+v", d)
	}
	again, _ := roll(t, `{"input":{"notation":"1d20+dexterity","seed":7,"refs":{"dexterity":3}}}`)
	if again[2].(*protocol.StatePatch).Patch["lastRoll"].(map[string]any)["result"] != last["result"] {
		t.Error("the same seed rolled differently")
	}
}

func TestRollFailures(t *testing.T) {
	for _, tt := range []struct{ stdin, code string }{
		{`{"input":{}}`, "missing_notation"},
		{`{"input":{"notation":"2d6kx3"}}`, "invalid_notation"},
		{`{"input":{"notation":"1d20+dex"}}`, "invalid_notation"},
	} {
		evs, code := roll(t, tt.stdin)
		if code != 0 {
			t.Errorf("%s: exit %d", tt.stdin, code)
		}
		e, ok := evs[len(evs)-2].(*protocol.ErrorEvent)
		if !ok || e.ErrorCode != tt.code || evs[len(evs)-1].(*protocol.Done).OK {
			t.Errorf("%s: events %v", tt.stdin, evs)
		}
	}
	if _, code := roll(t, `not json`); code == 0 {
		t.Error("garbage on stdin exited 0")
	}
}
