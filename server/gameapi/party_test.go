package gameapi_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/server/gameapi"
	"github.com/hearth-rpg/hearth/world"
)

// partySaltmere is the bundled campaign with a party of four offline
// agents: Kestrel and three companions written here.
func partySaltmere(t testing.TB) func(context.Context, string) (*campaign.Campaign, error) {
	t.Helper()
	return saltmereParty(t, "party: [kestrel, bram, oona, pim]")
}

// saltmereParty is the bundled campaign, served as "party", with
// campaign.yml's player replaced by party (a line of YAML) and three
// companions (bram, oona, pim) written here.
func saltmereParty(t testing.TB, party string) func(context.Context, string) (*campaign.Campaign, error) {
	t.Helper()
	files := fstest.MapFS{}
	err := fs.WalkDir(hearth.Campaigns, "campaigns/saltmere", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(hearth.Campaigns, p)
		files[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	yml := string(files["campaigns/saltmere/campaign.yml"].Data)
	if !strings.Contains(yml, "\nplayer: kestrel\n") {
		t.Fatal("the bundled campaign no longer names player: kestrel")
	}
	files["campaigns/saltmere/campaign.yml"].Data = []byte(strings.Replace(yml, "\nplayer: kestrel\n", "\n"+party+"\n", 1))
	for id, sheet := range map[string]string{
		"bram": "class: cleric\nhit_points: 16\narmor_class: 16\ninventory: {healing_potion: 1}\npersonality_traits: [Slow to anger.]",
		"oona": "class: wizard\nhit_points: 10\narmor_class: 12\npersonality_traits: [Asks one question too many.]",
		"pim":  "class: rogue\nhit_points: 13\narmor_class: 14\ninventory: {short_sword: 1}\nequipped: [short_sword]\npersonality_traits: [Pockets things.]",
	} {
		files["campaigns/saltmere/character_"+id+".md"] = &fstest.MapFile{Data: []byte("---\nentity_type: player_character\nentity_id: " + id +
			"\nname: " + strings.ToUpper(id[:1]) + id[1:] + "\nrace: human\nlevel: 2\nproficiency_bonus: 2\n" +
			"abilities: {strength: 12, dexterity: 14, constitution: 12, intelligence: 12, wisdom: 12, charisma: 10}\n" + sheet + "\n---\nA companion of Kestrel's.\n")}
	}
	return func(ctx context.Context, name string) (*campaign.Campaign, error) {
		if name != "party" {
			return nil, gameapi.ErrUnknownCampaign
		}
		return campaign.LoadFS(ctx, files, "campaigns/saltmere")
	}
}

// playParty plays n autopilot turns of a new party game with seed and
// returns its turn records as the GM reads them.
func playParty(t *testing.T, seed uint64, n int) []game.TurnRecord {
	t.Helper()
	h := newHarness(t, func(o *gameapi.Options) { o.Campaign = partySaltmere(t) })
	var in gameapi.SessionInfo
	h.ok(http.StatusCreated, "POST", "/api/sessions", gm, map[string]any{"campaign": "party", "seed": seed}, &in)
	c := h.dial(in.ID, gm)
	c.state()
	for i := 1; i <= n; i++ {
		c.send(gameapi.Command{Type: gameapi.NextTurn})
		c.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.Turn == i })
	}
	var page gameapi.TurnsPage
	h.ok(http.StatusOK, "GET", "/api/sessions/"+in.ID+"/turns?from=1&to=999", gm, nil, &page)
	if len(page.Turns) != n {
		t.Fatalf("%d turns, want %d", len(page.Turns), n)
	}
	return page.Turns
}

// TestPartyAutopilot: four offline agents play the bundled campaign in
// turn, each deciding from its own view; every turn is attributed, the
// play is more than looking around, and the same seed plays the same game.
func TestPartyAutopilot(t *testing.T) {
	const n = 24
	turns := playParty(t, 5, n)
	order := []string{"bram", "oona", "pim", "kestrel"} // kestrel acts first at turn 0, so bram plays turn 1
	kinds := map[string]bool{}
	for i, tr := range turns {
		if want := order[i%len(order)]; tr.Agent != want || tr.Controller != "offline" {
			t.Errorf("turn %d played by %q (%q), want %q (offline)", tr.Number, tr.Agent, tr.Controller, want)
		}
		if strings.Contains(tr.Input, "look around") || tr.Input == "look" {
			t.Errorf("turn %d: %q", tr.Number, tr.Input)
		}
		var intents []struct {
			Type string `json:"type"`
		}
		json.Unmarshal(tr.Intents, &intents) //nolint:errcheck // an empty list fails below
		for _, in := range intents {
			kinds[in.Type] = true
		}
	}
	if len(kinds) < 3 {
		t.Errorf("intent types used: %v; want at least 3", kinds)
	}
	again := playParty(t, 5, n)
	for i := range turns {
		if turns[i].Input != again[i].Input || turns[i].Narrative != again[i].Narrative || string(turns[i].Effects) != string(again[i].Effects) {
			t.Fatalf("turn %d differs between two runs with one seed:\n%q\n%q", i+1, turns[i].Input, again[i].Input)
		}
	}
	for _, tr := range turns {
		t.Logf("%2d %-8s %s", tr.Number, tr.Agent, tr.Input)
	}
}

// playPartyWorld plays n autopilot turns of a new party game with seed and
// returns its turns and its world at the end, read from the store.
func playPartyWorld(t *testing.T, seed uint64, n int) ([]game.TurnRecord, *world.State) {
	t.Helper()
	h := newHarness(t, func(o *gameapi.Options) { o.Campaign = partySaltmere(t) })
	var in gameapi.SessionInfo
	h.ok(http.StatusCreated, "POST", "/api/sessions", gm, map[string]any{"campaign": "party", "seed": seed}, &in)
	c := h.dial(in.ID, gm)
	c.state()
	for i := 1; i <= n; i++ {
		c.send(gameapi.Command{Type: gameapi.NextTurn})
		c.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.Turn == i })
	}
	var page gameapi.TurnsPage
	h.ok(http.StatusOK, "GET", "/api/sessions/"+in.ID+"/turns?from=1&to=999", gm, nil, &page)
	gs, err := game.Open(context.Background(), h.db, in.ID, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return page.Turns, gs.World()
}

// TestOfflinePartyFiftyTurns: with no model at all, four offline agents
// play the bundled campaign for 50 turns on autopilot to an outcome: the
// quest is taken and at least one of its objectives is done, the party
// has moved and found things, and the same seed plays the same game.
func TestOfflinePartyFiftyTurns(t *testing.T) {
	const n = 50
	turns, w := playPartyWorld(t, 9, n)
	for _, tr := range turns {
		t.Logf("%2d %-8s %-40s %s", tr.Number, tr.Agent, tr.Input, firstSentence(tr.Narrative))
	}
	q := w.Quests["relight_lantern"]
	if q == nil || q.Status == world.QuestAvailable {
		t.Fatalf("after %d turns the quest was not taken: %+v", n, q)
	}
	done := 0
	for _, o := range q.Objectives {
		if o.Done {
			done++
		}
	}
	if done == 0 && q.Status != world.QuestCompleted {
		t.Errorf("after %d turns no objective of %q is done: %+v", n, q.Name, q.Objectives)
	}
	visited := 0
	for _, l := range w.Locations {
		if l.Visited {
			visited++
		}
	}
	if visited < 3 {
		t.Errorf("the party has seen %d places in %d turns", visited, n)
	}
	agents := map[string]int{}
	for _, tr := range turns {
		agents[tr.Agent]++
	}
	if len(agents) != 4 {
		t.Errorf("turns by %v; want all four members", agents)
	}
	again, w2 := playPartyWorld(t, 9, n)
	for i := range turns {
		if turns[i].Input != again[i].Input || string(turns[i].Effects) != string(again[i].Effects) {
			t.Fatalf("turn %d differs between two runs with one seed: %q, %q", i+1, turns[i].Input, again[i].Input)
		}
	}
	if a, b := memoryOf(t, w), memoryOf(t, w2); a != b {
		t.Errorf("the agents' memories differ between two runs with one seed")
	}
}

func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.IndexAny(s, ".!?"); i > 0 {
		return s[:i+1]
	}
	return s
}

func memoryOf(t *testing.T, w *world.State) string {
	t.Helper()
	b, err := json.Marshal(w.Memory)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
