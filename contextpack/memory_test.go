package contextpack_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/tokens"
	"github.com/hearth-rpg/hearth/world"
)

func saltmere(t testing.TB) *world.State {
	c, err := campaign.LoadFS(context.Background(), hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.NewState()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func builder(t testing.TB) *contextpack.Builder {
	tok, err := tokens.CL100K()
	if err != nil {
		t.Fatal(err)
	}
	return contextpack.NewBuilder(tok)
}

// addFacts gives the world n facts, every third GM-only.
func addFacts(t testing.TB, w *world.State, n int) {
	for i := range n {
		vis := access.Player
		text := fmt.Sprintf("Fact %d: the tide left a mark on the harbour wall.", i)
		if i%3 == 0 {
			vis = access.GM
			text = fmt.Sprintf("GMSECRET %d: the keeper hid the lens.", i)
		}
		if err := w.Apply(world.FactRecorded{Fact: world.Fact{ID: fmt.Sprintf("f%05d", i), Text: text, Visibility: vis,
			Importance: float64(i%10) / 10, Turn: i % 500}}); err != nil {
			t.Fatal(err)
		}
	}
}

func history(n int) []contextpack.Turn {
	out := make([]contextpack.Turn, n)
	for i := range out {
		out[i] = contextpack.Turn{Number: i + 1, Input: fmt.Sprintf("look around %d", i+1),
			Narrative: "The harbour is quiet; gulls wheel over the dark lantern tower and the tide creeps in."}
	}
	return out
}

func TestPlayerPacketHidesGMOnly(t *testing.T) {
	w := saltmere(t)
	addFacts(t, w, 300)
	if err := w.Apply(world.WhisperSent{Whisper: world.Whisper{ID: "w1", From: "maren", To: "someone_else", Text: "PRIVATEWORD"}}); err != nil {
		t.Fatal(err)
	}
	b := builder(t)
	for _, budget := range []int{300, 1000, 4000, 20000} {
		player := b.Build(contextpack.Input{World: w, Viewer: contextpack.PlayerOf(w.Player), Action: "ask maren about the lantern", Budget: budget})
		text := player.Text()
		for _, leak := range []string{"GMSECRET", "SECRET (", "Pending consequences", "PRIVATEWORD", "Hidden here", "Opinion of the player"} {
			if strings.Contains(text, leak) {
				t.Errorf("budget %d: the player's packet contains %q", budget, leak)
			}
		}
		gm := b.Build(contextpack.Input{World: w, Viewer: contextpack.GM(), Action: "ask maren about the lantern", Budget: budget}).Text()
		if budget >= 4000 && (!strings.Contains(gm, "GMSECRET") || !strings.Contains(gm, "PRIVATEWORD")) {
			t.Errorf("budget %d: the GM's packet lacks GM-only material", budget)
		}
	}
}

func TestBudgetNeverExceeded(t *testing.T) {
	w := saltmere(t)
	addFacts(t, w, 500)
	b := builder(t)
	tok, _ := tokens.CL100K()
	for budget := 50; budget <= 6000; budget += 317 {
		for _, v := range []contextpack.Viewer{contextpack.GM(), contextpack.PlayerOf(w.Player)} {
			p := b.Build(contextpack.Input{World: w, Viewer: v, Action: "search the tower", Recent: history(200),
				Summary: &contextpack.Summary{From: 1, To: 100, Text: "Kestrel arrived in Saltmere."}, Budget: budget})
			sum := 0
			for _, s := range p.Sections {
				if got := tok.Count(s.Text); got != s.Tokens {
					t.Fatalf("section %s says %d tokens, counts %d", s.Name, s.Tokens, got)
				}
				sum += s.Tokens
			}
			if sum+p.System+p.Tools != p.Tokens || p.Tokens > budget {
				t.Fatalf("budget %d: packet has %d tokens (sections sum %d)", budget, p.Tokens, sum)
			}
			if budget < 2000 && len(p.Dropped) == 0 {
				t.Fatalf("budget %d: nothing dropped from 500 facts and 200 turns", budget)
			}
		}
	}
}

func TestDeterministicAndOrdered(t *testing.T) {
	w := saltmere(t)
	addFacts(t, w, 200)
	in := contextpack.Input{World: w, Viewer: contextpack.GM(), Action: "go north", Recent: history(30), Budget: 3000}
	a := builder(t).Build(in).Text()
	for range 5 {
		if b := builder(t).Build(in).Text(); b != a {
			t.Fatal("two builds of the same state differ")
		}
	}
	p := builder(t).Build(in)
	var names []string
	for _, s := range p.Sections {
		names = append(names, s.Name)
	}
	if names[0] != "campaign" || names[1] != "state" || names[len(names)-1] != "action" {
		t.Fatalf("section order %v", names)
	}
	// Facts keep their canon place before summaries and recent play.
	if i, j := slices.Index(names, "facts"), slices.Index(names, "recent"); i < 0 || j < 0 || i > j {
		t.Fatalf("section order %v", names)
	}
	// Recent turns are the newest, oldest first.
	recent := p.Sections[slices.Index(names, "recent")].Text
	if !strings.Contains(recent, "Turn 30.") || strings.Index(recent, "Turn 29.") > strings.Index(recent, "Turn 30.") {
		t.Fatalf("recent section:\n%s", recent)
	}
	msgs := p.Messages("You are the GM.")
	if !msgs[0].Cache || !strings.HasPrefix(msgs[0].Content, "You are the GM.") || msgs[len(msgs)-1].Content != "go north" {
		t.Fatalf("messages %+v", msgs)
	}
}

func TestDroppedFactsAreRecorded(t *testing.T) {
	w := saltmere(t)
	addFacts(t, w, 100)
	p := builder(t).Build(contextpack.Input{World: w, Viewer: contextpack.GM(), Budget: 700})
	n := 0
	for _, d := range p.Dropped {
		if strings.HasPrefix(d.What, "fact:") && d.Tier == contextpack.TierFacts && d.Over > 0 {
			n++
		}
	}
	if n == 0 {
		t.Fatalf("no facts dropped at a 700-token budget: %v", p.Dropped)
	}
}

// BenchmarkBuild assembles a packet at turn 10,000 with 5,000 facts, from
// the last 50 turns as the game passes them; it reports the p50.
func BenchmarkBuild(b *testing.B) {
	w := saltmere(b)
	addFacts(b, w, 5000)
	w.Turn = 10000
	recent := history(10000)[10000-50:]
	bl := builder(b)
	in := contextpack.Input{World: w, Viewer: contextpack.GM(), Action: "ask maren about the lantern", Recent: recent,
		Summary: &contextpack.Summary{From: 1, To: 9950, Text: "A long story."}, Budget: 4000}
	bl.Build(in)
	var ds []time.Duration
	for b.Loop() {
		t := time.Now()
		bl.Build(in)
		ds = append(ds, time.Since(t))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-µs")
}
