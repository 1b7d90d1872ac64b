package game_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/narrative/sqlitenarrative"
)

// peek is a pipeline that looks at the memories a turn recalls, then
// plays it offline.
type peek struct{ seen []contextpack.Section }

func (p *peek) Name() string { return "peek" }
func (p *peek) Play(ctx context.Context, t *game.Turn) error {
	p.seen = t.MemorySections(ctx, access.Player)
	return t.Fallback(ctx)
}

func TestTurnsBecomeMemories(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	mem, err := sqlitenarrative.Open(ctx, filepath.Join(dir, "hearth.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	s, err := game.New(ctx, db, loadTiny(t), 5, game.Options{Memories: mem})
	if err != nil {
		t.Fatal(err)
	}
	act(t, s, "look")     // changes nothing: no memory
	act(t, s, "go north") // a move: a minor memory
	act(t, s, "talk to tomas")
	act(t, s, "ask tomas about rats")
	all, err := mem.Recall(ctx, narrative.Query{Playthrough: s.ID(), Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no memories stored")
	}
	for _, m := range all {
		e := m.Event
		if e.Turn == 1 {
			t.Errorf("a turn that changed nothing was remembered: %+v", e)
		}
		if e.Summary == "" || e.Significance < 1 || e.Location == "" || len(e.Characters) == 0 {
			t.Errorf("thin memory: %+v", e)
		}
	}

	// A later turn that brings the rats up recalls what Tomas said.
	p := &peek{}
	s.UsePipeline(p)
	act(t, s, "what did tomas say about the rats")
	text := ""
	for _, sec := range p.seen {
		text += sec.Text
	}
	if !strings.Contains(strings.ToLower(text), "rat") {
		t.Errorf("the rats were not recalled:\n%s", text)
	}
}

func TestEpisodicCallbackModifiesCheck(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	mem, err := sqlitenarrative.Open(ctx, filepath.Join(dir, "hearth.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	s, err := game.New(ctx, db, loadTiny(t), 5, game.Options{Memories: mem})
	if err != nil {
		t.Fatal(err)
	}
	act(t, s, "go north")
	persuade := func() string {
		r := act(t, s, "persuade tomas to pay for the rats")
		var texts []string
		for _, o := range r.Outcomes {
			texts = append(texts, o.Text)
		}
		return strings.Join(texts, "\n")
	}
	if out := persuade(); !strings.Contains(out, "check") || strings.Contains(out, "remembers") {
		t.Fatalf("a callback without any triumph remembered:\n%s", out)
	}
	if _, err := mem.Remember(ctx, narrative.Event{Playthrough: s.ID(), Turn: 1, Summary: "Wren drove the rats out of the yard and Tomas paid up.",
		Characters: []string{"wren", "tomas"}, Location: "yard", Significance: 8, Kind: narrative.KindTriumph}); err != nil {
		t.Fatal(err)
	}
	out := persuade()
	if !strings.Contains(out, "+1: remembers a triumph") {
		t.Errorf("no +1 for the remembered triumph:\n%s", out)
	}
}

// turnKey marks the context a turn is played with.
type turnKey struct{}

// watched is a real memory store that notes the context of each episodic
// recall, the query the situational callback makes.
type watched struct {
	game.Memories
	marks []any
}

func (w *watched) Recall(ctx context.Context, q narrative.Query) ([]narrative.Match, error) {
	if q.Filter.Episodic {
		w.marks = append(w.marks, ctx.Value(turnKey{}))
	}
	return w.Memories.Recall(ctx, q)
}

// TestCallbackRecallsWithTheTurnsContext: the situational callback reads
// memories with the context the turn was played with, not one of its own.
func TestCallbackRecallsWithTheTurnsContext(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	mem, err := sqlitenarrative.Open(ctx, filepath.Join(dir, "hearth.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	w := &watched{Memories: mem}
	s, err := game.New(ctx, db, loadTiny(t), 5, game.Options{Memories: w})
	if err != nil {
		t.Fatal(err)
	}
	act(t, s, "go north")
	if _, err := s.Act(context.WithValue(ctx, turnKey{}, "turn 2"), "persuade tomas to pay for the rats"); err != nil {
		t.Fatal(err)
	}
	if len(w.marks) == 0 {
		t.Fatal("the check recalled no memories")
	}
	for _, m := range w.marks {
		if m != "turn 2" {
			t.Errorf("a recall saw %v, want the turn's context", m)
		}
	}
}
