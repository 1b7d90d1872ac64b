package playerchoices

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func scene(t *testing.T, js string) Scene {
	t.Helper()
	var sc Scene
	if err := json.Unmarshal([]byte(js), &sc); err != nil {
		t.Fatal(err)
	}
	return sc
}

const tavern = `{"location":{"id":"tavern","name":"the Drowned Lantern","exits":[{"direction":"south","to":"quay","name":"Saltmere Quay"}]},
 "present":[{"id":"maren","name":"Maren","perception":%s,"faction":"guild","reputation":%s}],
 "stats":{"resolve":%s},"stat_ranges":{"resolve":[0,5]}}`

func TestChoicesAreGated(t *testing.T) {
	tests := []struct {
		name                        string
		perception, reputation, res string
		want, not                   []string
	}{
		{"neutral", "0", "0", "3", []string{"Talk to Maren", "Go south to Saltmere Quay", "Look around"}, []string{"favour", "Ask Maren"}},
		{"friend", "45", "0", "3", []string{"Ask Maren for help"}, []string{"Talk to Maren"}},
		{"distrust", "-50", "0", "3", []string{"Try to win Maren over"}, []string{"Ask Maren"}},
		{"standing", "0", "75", "3", []string{"Call in a favour with the Guild"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := scene(t, fmt.Sprintf(tavern, tt.perception, tt.reputation, tt.res))
			opts := choose(sc, 4)
			if len(opts) < 3 || len(opts) > 4 {
				t.Fatalf("%d options: %+v", len(opts), opts)
			}
			var texts []string
			for _, o := range opts {
				texts = append(texts, o.Text)
			}
			all := strings.Join(texts, " | ")
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("want %q in %s", w, all)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(all, n) {
					t.Errorf("did not want %q in %s", n, all)
				}
			}
		})
	}
}

func TestLowStatMarksHard(t *testing.T) {
	sc := scene(t, `{"location":{"id":"x","name":"the cave"},"stats":{"wisdom":1},"stat_ranges":{"wisdom":[0,20]}}`)
	opts := choose(sc, 4)
	if o := opts[len(opts)-1]; o.ID != "search" || o.Difficulty != "hard" || o.GatedBy != "low wisdom" {
		t.Errorf("search with low wisdom: %+v", o)
	}
}

func TestProtocol(t *testing.T) {
	in := `{"requestId":"r1","input":{"scene":` + fmt.Sprintf(tavern, "0", "0", "3") + `}}`
	var out, errb bytes.Buffer
	if code := Run(strings.NewReader(in), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"narrative_choice"`) || !strings.Contains(lines[1], `"ok":true`) {
		t.Errorf("events:\n%s", out.String())
	}
	out.Reset()
	Run(strings.NewReader(`{"requestId":"r2","input":{}}`), &out, &errb)
	if !strings.Contains(out.String(), `"missing_scene"`) || !strings.Contains(out.String(), `"ok":false`) {
		t.Errorf("no scene:\n%s", out.String())
	}
}
