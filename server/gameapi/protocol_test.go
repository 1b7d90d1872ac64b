package gameapi_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/server/gameapi"
)

func TestDecodeCommand(t *testing.T) {
	tests := []struct {
		in      string
		want    gameapi.Command
		problem string // message id when it is refused
	}{
		{`{"type":"start_autopilot","speed":"normal"}`, gameapi.Command{Type: "start_autopilot", Speed: "normal"}, ""},
		{`{"type":"start_autopilot"}`, gameapi.Command{Type: "start_autopilot"}, ""},
		{`{"type":"stop_autopilot"}`, gameapi.Command{Type: "stop_autopilot"}, ""},
		{`{"type":"next_turn"}`, gameapi.Command{Type: "next_turn"}, ""},
		{`{"type":"drop_in","character":"rogue"}`, gameapi.Command{Type: "drop_in", Character: "rogue"}, ""},
		{`{"type":"release_control"}`, gameapi.Command{Type: "release_control"}, ""},
		{`{"type":"human_action","content":" I check the door for traps. "}`, gameapi.Command{Type: "human_action", Content: "I check the door for traps."}, ""},
		{`{"type":"nudge","content":"Maybe try talking to the innkeeper?"}`, gameapi.Command{Type: "nudge", Content: "Maybe try talking to the innkeeper?"}, ""},
		{`{"type":"set_speed","speed":"fast"}`, gameapi.Command{Type: "set_speed", Speed: "fast"}, ""},
		{`{"content":"x","type":"human_action"}`, gameapi.Command{Type: "human_action", Content: "x"}, ""},

		{``, gameapi.Command{}, "gameapi.msg.not_json"},
		{`null`, gameapi.Command{}, "gameapi.msg.not_json"},
		{`[1]`, gameapi.Command{}, "gameapi.msg.not_json"},
		{`{"type":"human_action","content":"x"} trailing`, gameapi.Command{}, "gameapi.msg.not_json"},
		{`{}`, gameapi.Command{}, "gameapi.msg.no_type"},
		{`{"type":7}`, gameapi.Command{}, "gameapi.msg.bad_field"},
		{`{"type":"fly"}`, gameapi.Command{}, "gameapi.msg.unknown_type"},
		{`{"type":"next_turn","speed":"fast"}`, gameapi.Command{}, "gameapi.msg.unknown_field"},
		{`{"type":"human_action","contnet":"x"}`, gameapi.Command{}, "gameapi.msg.unknown_field"},
		{`{"type":"human_action","content":null}`, gameapi.Command{}, "gameapi.msg.bad_field"},
		{`{"type":"human_action","content":["x"]}`, gameapi.Command{}, "gameapi.msg.bad_field"},
		{`{"type":"human_action"}`, gameapi.Command{}, "gameapi.msg.empty_content"},
		{`{"type":"nudge","content":"   "}`, gameapi.Command{}, "gameapi.msg.empty_content"},
		{`{"type":"human_action","content":"` + strings.Repeat("a", game.MaxInput+1) + `"}`, gameapi.Command{}, "gameapi.msg.too_long"},
		{`{"type":"set_speed"}`, gameapi.Command{}, "gameapi.msg.no_speed"},
	}
	for _, tt := range tests {
		name := tt.in
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			got, err := gameapi.DecodeCommand([]byte(tt.in))
			var p *gameapi.Problem
			switch {
			case tt.problem == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.problem == "" && got != tt.want:
				t.Fatalf("got %+v, want %+v", got, tt.want)
			case tt.problem != "" && !errors.As(err, &p):
				t.Fatalf("got %+v, %v; want problem %s", got, err, tt.problem)
			case tt.problem != "" && p.ID != tt.problem:
				t.Fatalf("problem %s, want %s", p.ID, tt.problem)
			}
		})
	}
}

// FuzzDecodeCommand: any input is a valid command or a problem, never a
// panic; a valid command survives a round trip.
func FuzzDecodeCommand(f *testing.F) {
	for _, s := range []string{
		`{"type":"human_action","content":"look"}`, `{"type":"drop_in","character":"x"}`, `{"type":"set_speed","speed":"fast"}`,
		`{"type":"next_turn"}`, `{"type":"nudge","content":"\u0000"}`, `{"type":"x"}`, `{`, `""`, `{"type":"start_autopilot","speed":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := gameapi.DecodeCommand(b)
		if err != nil {
			var p *gameapi.Problem
			if !errors.As(err, &p) || p.ID == "" {
				t.Fatalf("error %v is not a problem", err)
			}
			for k, v := range p.Data {
				if s, ok := v.(string); ok && (!utf8.ValidString(s) || len(s) > 200 && k != "Reason" && k != "Types") {
					t.Fatalf("problem data %s = %q", k, s)
				}
			}
			return
		}
		if c.Type == "" || len(c.Content) > game.MaxInput {
			t.Fatalf("accepted %+v", c)
		}
		again, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		c2, err := gameapi.DecodeCommand(again)
		if err != nil || c2 != c {
			t.Fatalf("round trip of %+v: %+v, %v", c, c2, err)
		}
	})
}
