package offlinegm

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/offline"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

var ctx = context.Background()

// saltmere returns the bundled campaign's opening state, with the player
// moved to a location.
func saltmere(t testing.TB, at string) *world.State {
	t.Helper()
	c, err := campaign.Load(ctx, "../campaigns/saltmere")
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.NewState()
	if err != nil {
		t.Fatal(err)
	}
	if at != "" {
		w.PC().Location = at
	}
	return w
}

func TestInterpret(t *testing.T) {
	quay := saltmere(t, "quay")
	tavern := saltmere(t, "tavern")
	cave := saltmere(t, "cave")
	lighthouse := saltmere(t, "lighthouse")
	wounded := saltmere(t, "quay")
	wounded.PC().HP = 5
	type want struct {
		intents []rules.Intent
		query   string
		reply   string // substring
		confirm string // substring
	}
	tests := []struct {
		w    *world.State
		in   string
		want want
	}{
		{quay, "look", want{intents: []rules.Intent{rules.Look{}}}},
		{quay, "L", want{intents: []rules.Intent{rules.Look{}}}},
		{quay, "look around.", want{intents: []rules.Intent{rules.Look{}}}},
		{quay, "look at nell", want{intents: []rules.Intent{rules.Look{Target: "nell"}}}},
		{quay, "examine the rope", want{intents: []rules.Intent{rules.Look{Target: "the rope"}}}},
		{quay, "x rope", want{intents: []rules.Intent{rules.Look{Target: "rope"}}}},
		{quay, "inspect the boats", want{intents: []rules.Intent{rules.Look{Target: "the boats"}}}},
		{quay, "n", want{intents: []rules.Intent{rules.Move{Destination: "north"}}}},
		{quay, "north", want{intents: []rules.Intent{rules.Move{Destination: "north"}}}},
		{quay, "go north", want{intents: []rules.Intent{rules.Move{Destination: "north"}}}},
		{quay, "Go North!", want{intents: []rules.Intent{rules.Move{Destination: "north"}}}},
		{quay, "please go west", want{intents: []rules.Intent{rules.Move{Destination: "west"}}}},
		{quay, "I want to go to the tavern", want{intents: []rules.Intent{rules.Move{Destination: "tavern"}}}},
		{quay, "walk to chapel lane", want{intents: []rules.Intent{rules.Move{Destination: "chapel lane"}}}},
		{quay, "head east", want{intents: []rules.Intent{rules.Move{Destination: "east"}}}},
		{quay, "enter the drowned lantern", want{intents: []rules.Intent{rules.Move{Destination: "the drowned lantern"}}}},
		{quay, "go upstairs", want{intents: []rules.Intent{rules.Move{Destination: "up"}}}},
		{quay, "u", want{intents: []rules.Intent{rules.Move{Destination: "up"}}}},
		{quay, "go", want{reply: "Go where? Exits: north to The Drowned Lantern"}},
		{quay, "leave", want{intents: []rules.Intent{rules.Move{Destination: "north"}}}},
		{quay, "talk to nell", want{intents: []rules.Intent{rules.Talk{NPC: "nell"}}}},
		{quay, "speak with Nell Pike", want{intents: []rules.Intent{rules.Talk{NPC: "nell pike"}}}},
		{quay, "greet nell", want{intents: []rules.Intent{rules.Talk{NPC: "nell"}}}},
		{quay, "hello nell", want{intents: []rules.Intent{rules.Talk{NPC: "nell"}}}},
		{quay, "hello", want{intents: []rules.Intent{rules.Talk{NPC: "Nell Pike"}}}},
		{quay, "ask nell about the lights", want{intents: []rules.Intent{rules.Talk{NPC: "nell", Topic: "the lights"}}}},
		{quay, "talk to nell about the cave", want{intents: []rules.Intent{rules.Talk{NPC: "nell", Topic: "the cave"}}}},
		{quay, "tell nell about the smugglers", want{intents: []rules.Intent{rules.Talk{NPC: "nell", Topic: "the smugglers"}}}},
		{quay, "ask about the lighthouse", want{intents: []rules.Intent{rules.Talk{NPC: "Nell Pike", Topic: "the lighthouse"}}}},
		{quay, "nell, what did you see?", want{intents: []rules.Intent{rules.Talk{NPC: "nell", Topic: "what did you see"}}}},
		{lighthouse, "ask the keeper for the key", want{intents: []rules.Intent{rules.Talk{NPC: "the keeper", Topic: "the key"}}}},
		{saltmere(t, "clifftop"), "ask about lights", want{reply: "no one here to talk to"}},
		{quay, "search", want{intents: []rules.Intent{rules.Search{}}}},
		{quay, "search the area", want{intents: []rules.Intent{rules.Search{}}}},
		{quay, "look for clues", want{intents: []rules.Intent{rules.Search{}}}},
		{quay, "investigate", want{intents: []rules.Intent{rules.Search{}}}},
		{quay, "take the rope", want{intents: []rules.Intent{rules.TakeItem{Item: "the rope"}}}},
		{quay, "pick up rope", want{intents: []rules.Intent{rules.TakeItem{Item: "rope"}}}},
		{quay, "pick the rope up", want{intents: []rules.Intent{rules.TakeItem{Item: "the rope"}}}},
		{quay, "pick the lock", want{intents: []rules.Intent{rules.Check{Skill: "sleight_of_hand", DC: 12, Reason: "pick the lock"}}}},
		{quay, "grab the rope", want{intents: []rules.Intent{rules.TakeItem{Item: "the rope"}}}},
		{quay, "take all", want{intents: []rules.Intent{rules.TakeItem{Item: "rope", Qty: 1}}}},
		{cave, "take the lens from rook", want{intents: []rules.Intent{rules.TakeItem{Item: "the lens", From: "rook"}}}},
		{cave, "loot rook", want{intents: []rules.Intent{rules.TakeItem{Item: "all", From: "rook"}}}},
		{quay, "use potion", want{intents: []rules.Intent{rules.UseItem{Item: "potion"}}, confirm: "You are unhurt (20/20 HP); Healing Potion would be wasted. Use it anyway?"}},
		{quay, "drink the healing potion", want{intents: []rules.Intent{rules.UseItem{Item: "the healing potion"}}, confirm: "would be wasted"}},
		{wounded, "quaff potion", want{intents: []rules.Intent{rules.UseItem{Item: "potion"}}}},
		{quay, "use the potion on nell", want{intents: []rules.Intent{rules.UseItem{Item: "the potion", Target: "nell"}}}},
		{quay, "put the lens in the lantern", want{intents: []rules.Intent{rules.UseItem{Item: "the lens", Target: "the lantern"}}}},
		{quay, "light the lantern with the oil", want{intents: []rules.Intent{rules.UseItem{Item: "the oil", Target: "the lantern"}}}},
		{quay, "unlock the grate with the brass key", want{intents: []rules.Intent{rules.UseItem{Item: "the brass key", Target: "the grate"}}}},
		{quay, "give the sword to nell", want{intents: []rules.Intent{rules.GiveItem{Item: "the sword", To: "nell"}}}},
		{quay, "give nell the potion", want{intents: []rules.Intent{rules.GiveItem{Item: "the potion", To: "nell"}}}},
		{quay, "hand the potion to nell", want{intents: []rules.Intent{rules.GiveItem{Item: "the potion", To: "nell"}}}},
		{quay, "pay nell 3 gold", want{intents: []rules.Intent{rules.GiveItem{Item: "gold", Qty: 3, To: "nell"}}}},
		{quay, "drop the cloak", want{intents: []rules.Intent{rules.DropItem{Item: "the cloak"}}}},
		{quay, "wield the short sword", want{intents: []rules.Intent{rules.EquipItem{Item: "the short sword"}}}},
		{quay, "sheathe sword", want{intents: []rules.Intent{rules.EquipItem{Item: "sword", Unequip: true}}}},
		{quay, "rest", want{intents: []rules.Intent{rules.Rest{Rest: "short"}}}},
		{quay, "long rest", want{intents: []rules.Intent{rules.Rest{Rest: "long"}}}},
		{quay, "sleep", want{intents: []rules.Intent{rules.Rest{Rest: "long"}}}},
		{quay, "roll 2d6+1", want{intents: []rules.Intent{rules.RollDice{Notation: "2d6+1"}}}},
		{quay, "roll 1d20+dex for luck", want{intents: []rules.Intent{rules.RollDice{Notation: "1d20+dex", Reason: "luck"}}}},
		{quay, "roll stealth", want{intents: []rules.Intent{rules.Check{Skill: "stealth", DC: 12, Reason: "roll stealth"}}}},
		{quay, "roll", want{reply: "Roll what?"}},
		{quay, "make a perception check", want{intents: []rules.Intent{rules.Check{Skill: "perception", DC: 12, Reason: "make a perception check"}}}},
		{quay, "make a strength check", want{intents: []rules.Intent{rules.Check{Ability: "strength", DC: 12, Reason: "make a strength check"}}}},
		{quay, "listen", want{intents: []rules.Intent{rules.Search{Skill: "perception"}}}},
		{quay, "sneak past the boats", want{intents: []rules.Intent{rules.Check{Skill: "stealth", DC: 12, Reason: "sneak past the boats"}}}},
		{quay, "persuade nell to help", want{intents: []rules.Intent{rules.Check{Skill: "persuasion", DC: 12, Reason: "persuade Nell Pike to help", Target: "nell"}}}},
		{quay, "climb the mast", want{intents: []rules.Intent{rules.Check{Skill: "athletics", DC: 12, Reason: "climb the mast"}}}},
		{saltmere(t, "lighthouse"), "climb the stair", want{intents: []rules.Intent{rules.Move{Destination: "the stair"}}}},
		{quay, "wait", want{intents: []rules.Intent{rules.AdvanceTime{Duration: "10m", Reason: "waiting"}}}},
		{cave, "flee", want{intents: []rules.Intent{rules.Flee{}}}},
		{cave, "run away", want{intents: []rules.Intent{rules.Flee{}}}},
		{cave, "attack", want{reply: "Attack whom? Gristle or Rook."}},
		{cave, "attack the hound", want{intents: []rules.Intent{rules.Attack{Target: "the hound"}}}},
		{cave, "hit rook with my short sword", want{intents: []rules.Intent{rules.Attack{Target: "rook", Weapon: "short sword"}}}},
		{cave, "stab rook", want{intents: []rules.Intent{rules.Attack{Target: "rook"}}}},
		{quay, "attack nell", want{intents: []rules.Intent{rules.Attack{Target: "nell"}}, confirm: "Nell Pike is not hostile. Attack anyway?"}},
		{quay, "attack", want{reply: "No one here is fighting you"}},
		{quay, "inventory", want{query: "inventory"}},
		{quay, "i", want{query: "inventory"}},
		{quay, "sheet", want{query: "sheet"}},
		{quay, "stats", want{query: "sheet"}},
		{quay, "quests", want{query: "quests"}},
		{quay, "journal", want{query: "quests"}},
		{quay, "help", want{query: "help"}},
		{quay, "?", want{query: "help"}},
		{quay, "go north then talk to maren", want{intents: []rules.Intent{rules.Move{Destination: "north"}, rules.Talk{NPC: "maren"}}}},
		{quay, "go north, then ask maren about the lantern", want{intents: []rules.Intent{rules.Move{Destination: "north"}, rules.Talk{NPC: "maren", Topic: "the lantern"}}}},
		{quay, "search and then take all", want{intents: []rules.Intent{rules.Search{}, rules.TakeItem{Item: "rope", Qty: 1}}}},
		{quay, "go north then xyzzy", want{intents: []rules.Intent{rules.Move{Destination: "north"}}, reply: "Kestrel can't see a way to do that here."}},
		{quay, "I take a look around", want{intents: []rules.Intent{rules.Look{}}}},
		{quay, "take a look at nell", want{intents: []rules.Intent{rules.Look{Target: "nell"}}}},
		{quay, "what is this place?", want{intents: []rules.Intent{rules.Look{}}}},
		{quay, "give nell 2 gold", want{intents: []rules.Intent{rules.GiveItem{Item: "gold", Qty: 2, To: "nell"}}}},
		{quay, "give 3 gold to nell", want{intents: []rules.Intent{rules.GiveItem{Item: "gold", Qty: 3, To: "nell"}}}},
		{quay, "take 2 arrows", want{intents: []rules.Intent{rules.TakeItem{Item: "arrows", Qty: 2}}}},
		{quay, "climb the cliffs", want{intents: []rules.Intent{rules.Move{Destination: "the cliffs"}}}},
		{quay, "frobnicate wildly", want{reply: `Kestrel can't see a way to do that here. At Saltmere Quay you could talk to Nell, take the coil of rope, go north, go east, go west or search.`}},
		{quay, "lighthouse", want{reply: ""}},
		{tavern, "yes", want{reply: "Nothing is waiting"}},
		{quay, "", want{reply: "What do you do?"}},
	}
	p := New()
	for _, tt := range tests {
		got, err := p.Interpret(ctx, tt.w, tt.in)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if tt.want.intents != nil && !reflect.DeepEqual(got.Intents, tt.want.intents) {
			t.Errorf("%q: intents %#v\nwant %#v", tt.in, got.Intents, tt.want.intents)
		}
		if tt.want.intents == nil && len(got.Intents) > 0 {
			t.Errorf("%q: unexpected intents %#v", tt.in, got.Intents)
		}
		if got.Query != tt.want.query {
			t.Errorf("%q: query %q, want %q", tt.in, got.Query, tt.want.query)
		}
		if !strings.Contains(got.Reply, tt.want.reply) || (tt.want.reply == "" && got.Reply != "" && tt.want.intents != nil) {
			t.Errorf("%q: reply %q, want it to contain %q", tt.in, got.Reply, tt.want.reply)
		}
		if !strings.Contains(got.Confirm, tt.want.confirm) || (tt.want.confirm == "" && got.Confirm != "") {
			t.Errorf("%q: confirm %q, want %q", tt.in, got.Confirm, tt.want.confirm)
		}
	}
	if len(tests) < 60 {
		t.Errorf("only %d cases", len(tests))
	}
}

// play resolves input on w through the interpreter, the engine and the
// narrator, applying effects, and returns the narration and what was
// emitted.
func play(t *testing.T, w *world.State, r *rand.Rand, input string) (string, []string) {
	t.Helper()
	p := New()
	e, err := rules.New(w.System)
	if err != nil {
		t.Fatal(err)
	}
	in, err := p.Interpret(ctx, w, input)
	if err != nil {
		t.Fatal(err)
	}
	var all, done []*rules.Resolution
	var rej *rules.Rejection
	apply := func(res *rules.Resolution) error {
		all = append(all, res)
		return w.ApplyAll(res.Effects())
	}
	for _, intent := range in.Intents {
		res, err := e.Resolve(ctx, w, intent, r)
		if err != nil {
			var ok bool
			if rej, ok = err.(*rules.Rejection); !ok {
				t.Fatal(err)
			}
			break
		}
		if err := apply(res); err != nil {
			t.Fatal(err)
		}
		done = append(done, res)
	}
	if len(done) > 0 {
		if err := e.React(ctx, w, done, r, apply); err != nil {
			t.Fatal(err)
		}
	}
	var pieces []string
	text, err := p.Narrate(ctx, rules.Narration{Input: input, World: w, Resolutions: all, Rejection: rej}, func(s string) { pieces = append(pieces, s) })
	if err != nil {
		t.Fatal(err)
	}
	return text, pieces
}

func TestNarrationIsGroundedAndDeterministic(t *testing.T) {
	script := []string{"look", "talk to nell", "ask nell about the lights", "go north", "ask maren about tobiah",
		"go south", "go west", "search", "go down", "attack the hound", "attack rook", "attack rook", "attack rook", "take the lens", "go west"}
	run := func() []string {
		w := saltmere(t, "")
		r := rand.New(rand.NewPCG(3, 4))
		var out []string
		for _, in := range script {
			text, pieces := play(t, w, r, in)
			if strings.Join(pieces, "") != text {
				t.Fatalf("%q: emitted pieces do not add up to the narration", in)
			}
			out = append(out, text)
		}
		return out
	}
	a, b := run(), run()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed and input narrated differently")
	}
	all := strings.Join(a, "\n")
	for _, want := range []string{
		"== Saltmere Quay ==", "Wet stones run down to black water.", // location text
		"Nell Pike is here.", "Exits: north to The Drowned Lantern",
		`Nell Pike: "Lights under the headland`, // a topic, in her words
		"(You could ask Nell about",             // the hint after a greeting
		`Maren Holt: "Tobiah Wick's kept that light`,
		"Behind a screen of gorse", // the discoverable's text
		"[Investigation ",          // mechanics in brackets
		"A lantern flares behind the crates.",
		"⚔ A fight breaks out! Initiative:",
		"[Attack ",
		"You can't go \"west\" from Smugglers' Cave; exits: up to Clifftop Path.",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("narration lacks %q", want)
		}
	}
	for _, secret := range []string{"Jory", "copper a night", "Aldric Fenn", "Corbin's Reach elder", "Suspicion"} {
		if strings.Contains(all, secret) {
			t.Errorf("narration reveals GM-only %q", secret)
		}
	}
}

func TestNarrateRejectionAlone(t *testing.T) {
	w := saltmere(t, "")
	text, _ := play(t, w, rand.New(rand.NewPCG(1, 1)), "talk to mira")
	if text != "There is no \"mira\" at Saltmere Quay; present: Nell Pike.\n" {
		t.Errorf("rejection: %q", text)
	}
}

// TestChatToolCallsAndNarration plays ToolCalls through the offline
// provider, as the agentic pipeline does with no model.
func TestChatToolCallsAndNarration(t *testing.T) {
	p := offline.New(offline.WithToolCalls(ToolCalls))
	tools := []llm.Tool{{Name: "move"}, {Name: "talk"}}
	var chunks []llm.Chunk
	resp, err := p.Chat(ctx, llm.Request{Tools: tools, Messages: []llm.Message{
		{Role: llm.System, Content: "You are the GM."},
		{Role: llm.User, Content: "go north then talk to maren then search"},
	}}, func(c llm.Chunk) error { chunks = append(chunks, c); return nil })
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls
	if len(calls) != 2 || calls[0].Name != "move" || calls[1].Name != "talk" || calls[0].ID != "call_1" || calls[1].ID != "call_2" ||
		resp.StopReason != "tool_calls" || len(chunks) != 2 {
		t.Fatalf("tool calls: %+v (stop %s, %d chunks)", calls, resp.StopReason, len(chunks))
	}
	in, err := rules.DecodeArgs(calls[1].Name, calls[1].Arguments)
	if err != nil || in.(rules.Talk).NPC != "maren" {
		t.Errorf("arguments %s decode to %#v, %v", calls[1].Arguments, in, err)
	}
	chunks = nil
	resp, err = p.Chat(ctx, llm.Request{Tools: tools, Messages: []llm.Message{
		{Role: llm.User, Content: "go north"},
		{Role: llm.Assistant, ToolCalls: calls[:1]},
		{Role: llm.ToolRole, ToolCallID: "call_1", Name: "move", Content: "You go north to the tavern. It is warm."},
	}}, func(c llm.Chunk) error { chunks = append(chunks, c); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "You go north to the tavern. It is warm." || len(chunks) != 2 || resp.Usage.CompletionTokens == 0 {
		t.Errorf("narration: %+v, %d chunks", resp, len(chunks))
	}
	resp, err = p.Chat(ctx, llm.Request{Tools: tools, Messages: []llm.Message{{Role: llm.User, Content: "xyzzy"}}}, nil)
	if err != nil || !strings.Contains(resp.Message.Content, "can't see a way to do that") || strings.Contains(resp.Message.Content, "xyzzy") {
		t.Errorf("unknown input: %+v %v", resp, err)
	}
	if _, err := p.Chat(ctx, llm.Request{}, nil); err == nil {
		t.Error("no messages accepted")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.Chat(cancelled, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hello. there."}}}, nil); err == nil {
		t.Error("a cancelled context should stop the stream")
	}
}

func FuzzInterpret(f *testing.F) {
	for _, s := range []string{"look", "go north then talk to maren", "ask nell about the lights", "attack rook with sword",
		"give nell the potion", "pay nell 3 gold", "roll 4d6kh3 for strength"} {
		f.Add(s)
	}
	w := saltmere(f, "quay")
	p := New()
	f.Fuzz(func(t *testing.T, s string) {
		for _, world := range []*world.State{nil, w} {
			in, err := p.Interpret(ctx, world, s)
			if err != nil {
				t.Fatalf("Interpret(%q): %v", s, err)
			}
			if len(in.Intents) == 0 && in.Query == "" && in.Reply == "" {
				t.Fatalf("Interpret(%q) answered nothing", s)
			}
			for _, intent := range in.Intents {
				if _, err := rules.MarshalIntent(intent); err != nil {
					t.Fatalf("Interpret(%q) made an intent that does not encode: %v", s, err)
				}
			}
		}
	})
}

func BenchmarkInterpret(b *testing.B) {
	w := saltmere(b, "quay")
	p := New()
	b.ReportAllocs()
	for range b.N {
		if _, err := p.Interpret(ctx, w, "go north then ask maren about the lantern"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNarrate(b *testing.B) {
	w := saltmere(b, "quay")
	e, _ := rules.New(w.System)
	res, err := e.Resolve(ctx, w, rules.Move{Destination: "north"}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	if err := w.ApplyAll(res.Effects()); err != nil {
		b.Fatal(err)
	}
	p := New()
	n := rules.Narration{Input: "go north", World: w, Resolutions: []*rules.Resolution{res}}
	b.ReportAllocs()
	for range b.N {
		if _, err := p.Narrate(ctx, n, nil); err != nil {
			b.Fatal(err)
		}
	}
}
