package assistant

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/library/sqlitelibrary"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
)

func TestSelect(t *testing.T) {
	tb := &Toolbox{}
	all := tb.Tools(Caller{Role: access.GM})
	if got := strings.Join(Names(all), ","); got != "system_schema,fvtt_read,fvtt_write,fvtt_query,dice_roll" {
		t.Fatalf("tools without search or documents: %s", got)
	}
	got, err := Select(all, []string{"dice_roll", "system_schema"})
	if err != nil || strings.Join(Names(got), ",") != "system_schema,dice_roll" {
		t.Fatalf("Select = %v, %v", Names(got), err)
	}
	if _, err := Select(all, []string{"dice_rol"}); err == nil || !strings.Contains(err.Error(), "dice_rol") {
		t.Fatalf("unknown tool: %v", err)
	}
	for _, tool := range all {
		var s map[string]any
		if err := json.Unmarshal(tool.Parameters, &s); err != nil || s["type"] != "object" {
			t.Errorf("%s: schema %s", tool.Name, tool.Parameters)
		}
	}
}

// toolbox is a real index and library with one player and one GM book.
func toolbox(t *testing.T) *Toolbox {
	t.Helper()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "hearth.db")
	ix, err := sqliteindex.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	st, err := sqlitelibrary.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	lib := library.New(st, ix)
	for _, d := range []struct {
		id, title, text string
		level           access.Level
	}{
		{"core", "Core Rulebook", "Streetwise lets a traveller find contacts in a starport.", access.Player},
		{"plot", "Campaign Secrets", "The starport's contacts all report to the duke's spymaster.", access.GM},
	} {
		if err := lib.Put(ctx, library.Document{ID: d.id, Title: d.title, Format: "markdown", Source: d.id, Hash: d.id, Access: d.level, Tags: []string{d.id}},
			[]library.Page{{Number: 7, Text: d.text}}, []library.Image{{Page: 7, Width: 64, Height: 48, Data: []byte("RIFF"), Description: "A map of the starport of " + d.id}}, []chunk.Chunk{{Page: 7, Section: []string{"Skills"}, Text: d.text}}); err != nil {
			t.Fatal(err)
		}
	}
	return &Toolbox{Search: ix, Documents: lib, Images: lib}
}

func run(t *testing.T, tools []agent.Tool, name, args string) (agent.Result, error) {
	t.Helper()
	for _, tool := range tools {
		if tool.Name == name {
			return tool.Run(context.Background(), json.RawMessage(args))
		}
	}
	t.Fatalf("no tool %s", name)
	return agent.Result{}, nil
}

func TestToolsReadAsTheCaller(t *testing.T) {
	tb := toolbox(t)
	player, gm := tb.Tools(Caller{Role: access.Player}), tb.Tools(Caller{Role: access.GM})
	res, err := run(t, player, DocumentSearch, `{"query":"starport contacts"}`)
	if err != nil || !strings.Contains(res.Content, "Core Rulebook › Skills, page 7 (document_id core)") || strings.Contains(res.Content, "spymaster") {
		t.Fatalf("player search: %q, %v", res.Content, err)
	}
	if res, _ := run(t, gm, DocumentSearch, `{"query":"starport contacts"}`); !strings.Contains(res.Content, "spymaster") {
		t.Fatalf("GM search misses the GM book: %q", res.Content)
	}
	if res, _ := run(t, gm, DocumentSearch, `{"query":"starport contacts","tags":["core"],"tags_match":"all"}`); strings.Contains(res.Content, "spymaster") {
		t.Fatalf("tag filter ignored: %q", res.Content)
	}
	// The GM book's page is as absent for a player as a book that does not exist.
	_, errHidden := run(t, player, DocumentGet, `{"document_id":"plot","page":7}`)
	_, errMissing := run(t, player, DocumentGet, `{"document_id":"nosuch","page":7}`)
	if errHidden == nil || errMissing == nil || strings.ReplaceAll(errHidden.Error(), "plot", "X") != strings.ReplaceAll(errMissing.Error(), "nosuch", "X") {
		t.Fatalf("hidden %v vs missing %v", errHidden, errMissing)
	}
	if res, err := run(t, gm, DocumentGet, `{"document_id":"plot","page":7}`); err != nil || !strings.Contains(res.Content, "spymaster") {
		t.Fatalf("GM page: %q, %v", res.Content, err)
	}
	if _, err := run(t, gm, DocumentGet, `{"document_id":"core","page":99}`); err == nil || !strings.Contains(err.Error(), "has 1 pages") {
		t.Fatalf("missing page: %v", err)
	}
	for _, bad := range []string{`{"query":""}`, `{"query":"x","tags_match":"some"}`, `{"quer":"x"}`} {
		if _, err := run(t, player, DocumentSearch, bad); err == nil {
			t.Errorf("search %s: no error", bad)
		}
	}
}

func TestImageSearchReadsAsTheCaller(t *testing.T) {
	tb := toolbox(t)
	player, gm := tb.Tools(Caller{Role: access.Player}), tb.Tools(Caller{Role: access.GM})
	tests := []struct {
		name       string
		tools      []agent.Tool
		args       string
		want, hide []string
	}{
		{"player by words", player, `{"query":"starport map"}`, []string{"Core Rulebook (document_id core), page 7, 64x48: A map of the starport of core"}, []string{"plot", "Campaign Secrets"}},
		{"player asks for the GM book", player, `{"document_id":"plot"}`, []string{"No images found"}, []string{"plot"}},
		{"GM by words", gm, `{"query":"starport map"}`, []string{"of core", "Campaign Secrets (document_id plot), page 7"}, nil},
		{"GM by page", gm, `{"document_id":"plot","page":7}`, []string{"Campaign Secrets"}, []string{"Core Rulebook"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, tt.tools, ImageSearch, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("missing %q in %q", w, res.Content)
				}
			}
			for _, h := range tt.hide {
				if strings.Contains(res.Content, h) {
					t.Errorf("leaks %q in %q", h, res.Content)
				}
			}
		})
	}
	// Each line names an id the client resolves, one GET /api/images would give.
	res, _ := run(t, player, ImageSearch, `{"query":"starport"}`)
	ims, err := tb.Images.SearchImages(context.Background(), library.ImageQuery{Text: "starport", Role: access.Player})
	if err != nil || len(ims) != 1 || !strings.HasPrefix(res.Content, fmt.Sprintf("hearth-image:%d ", ims[0].ID)) {
		t.Fatalf("ids: %q vs %+v, %v", res.Content, ims, err)
	}
	for _, bad := range []string{`{}`, `{"query":"x","page":3}`, `{"document_id":"core","page":-1}`, `{"q":"x"}`} {
		if _, err := run(t, player, ImageSearch, bad); err == nil {
			t.Errorf("image_search %s: no error", bad)
		}
	}
}

func TestSystemSchema(t *testing.T) {
	schema := json.RawMessage(`{"system":"mgt2e","actorTypes":["traveller","npc"],"actorSchemas":{"traveller":{"skills":"object"}},"itemTypes":["weapon"],"itemSchemas":{}}`)
	tools := (&Toolbox{}).Tools(Caller{Role: access.Player, Schema: schema})
	res, err := run(t, tools, SystemSchema, `{"document_type":"actor"}`)
	if err != nil || !strings.Contains(res.Content, "traveller") || strings.Contains(res.Content, "weapon") || res.Summary != "mgt2e" {
		t.Fatalf("actor schema: %+v, %v", res, err)
	}
	none := (&Toolbox{}).Tools(Caller{Role: access.Player})
	if res, err := run(t, none, SystemSchema, `{}`); err != nil || !strings.Contains(res.Content, "did not describe") {
		t.Fatalf("no schema: %+v, %v", res, err)
	}
}

// The offline librarian runs the real loop: it searches for the question
// and answers with the cited passages.
// A tool set built for the GM still reads as a player when the request
// carries a player.
func TestToolsNarrowToTheRequestUser(t *testing.T) {
	gm := toolbox(t).Tools(Caller{Role: access.GM})
	ctx := auth.WithUser(context.Background(), auth.User{ID: "p", Role: access.Player})
	for _, tool := range gm {
		if tool.Name != DocumentSearch {
			continue
		}
		res, err := tool.Run(ctx, json.RawMessage(`{"query":"starport contacts spymaster"}`))
		if err != nil || strings.Contains(res.Content, "spymaster") {
			t.Fatalf("GM tool run by a player: %q, %v", res.Content, err)
		}
	}
}

func TestTravellerTools(t *testing.T) {
	tb := toolbox(t)
	tb.Traveller = &Traveller{}
	tools := tb.Tools(Caller{Role: access.Player})
	res, err := run(t, tools, TravellerUWPParse, `{"uwp":"A788899-C","rules":"t5"}`)
	if err != nil || !strings.Contains(res.Content, `"trade_codes"`) || !strings.Contains(res.Content, `"Ri"`) || res.Summary != "A788899-C" {
		t.Fatalf("uwp: %+v, %v", res, err)
	}
	if _, err := run(t, tools, TravellerUWPParse, `{"uwp":"A78I899-C"}`); err == nil || !strings.Contains(err.Error(), "position 4") {
		t.Fatalf("bad uwp: %v", err)
	}
	// Without a world list, places are given as sector and hex.
	res, err = run(t, tools, TravellerJumpCalc, `{"from":"Spinward Marches 1910","to":"Spinward Marches 1912","jump_rating":2,"hull_tons":200}`)
	if err != nil || !strings.Contains(res.Content, `"distance_parsecs":2`) || !strings.Contains(res.Content, `"one_jump":true`) || !strings.Contains(res.Content, `"fuel_tons":40`) {
		t.Fatalf("jump: %+v, %v", res, err)
	}
	if _, err := run(t, tools, TravellerJumpCalc, `{"from":"Regina","to":"Rhylanor","jump_rating":2}`); err == nil || !strings.Contains(err.Error(), "sector and hex") {
		t.Fatalf("names without a world list: %v", err)
	}
	if _, err := run(t, tools, TravellerJumpCalc, `{"from":"Spin 1910","to":"Spin 1912","jump_rating":9}`); err == nil {
		t.Fatal("jump-9 accepted")
	}
	res, err = run(t, tools, TravellerSkillLookup, `{"skill":"Streetwise"}`)
	if err != nil || !strings.Contains(res.Content, "Streetwise lets") {
		t.Fatalf("skill: %+v, %v", res, err)
	}
}

// The seed's traveller_jump_calc takes a distance and the ship's rating and
// tonnage (seed 000 appendix A); routes between worlds are Hearth's extra.
func TestTravellerJumpSeedArguments(t *testing.T) {
	tb := toolbox(t)
	tb.Traveller = &Traveller{}
	tools := tb.Tools(Caller{Role: access.Player})
	for _, tc := range []struct {
		name, args string
		want       []string
	}{
		{"one jump", `{"distance_parsecs":2,"ship_jump_rating":2,"ship_tonnage":200}`,
			[]string{`"distance_parsecs":2`, `"one_jump":true`, `"jumps":1`, `"fuel_tons":40`}},
		{"three jumps", `{"distance_parsecs":5,"ship_jump_rating":2,"ship_tonnage":400}`,
			[]string{`"distance_parsecs":5`, `"one_jump":false`, `"jumps":3`, `"fuel_tons":200`, `"max_leg_fuel_tons":80`, `"hours_in_jump_min":`}},
		{"route names still work", `{"from":"Spinward Marches 1910","to":"Spinward Marches 1912","jump_rating":2,"hull_tons":200}`,
			[]string{`"distance_parsecs":2`, `"one_jump":true`}},
		{"route with the seed's ship fields", `{"from":"Spinward Marches 1910","to":"Spinward Marches 1912","ship_jump_rating":1,"ship_tonnage":100}`,
			[]string{`"distance_parsecs":2`, `"one_jump":false`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := run(t, tools, TravellerJumpCalc, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("%s lacks %s", res.Content, w)
				}
			}
		})
	}
	for _, bad := range []string{
		`{"distance_parsecs":3,"ship_jump_rating":0,"ship_tonnage":200}`,
		`{"distance_parsecs":0,"ship_jump_rating":2,"ship_tonnage":200}`,
		`{"distance_parsecs":3,"ship_jump_rating":2,"ship_tonnage":200,"from":"Spin 1910","to":"Spin 1912"}`,
		`{"ship_jump_rating":2}`,
	} {
		if res, err := run(t, tools, TravellerJumpCalc, bad); err == nil {
			t.Errorf("%s accepted: %s", bad, res.Content)
		}
	}
	var schema struct {
		Properties map[string]any `json:"properties"`
	}
	for _, tool := range tools {
		if tool.Name == TravellerJumpCalc {
			_ = json.Unmarshal(tool.Parameters, &schema)
		}
	}
	for _, p := range []string{"distance_parsecs", "ship_jump_rating", "ship_tonnage", "from", "to"} {
		if schema.Properties[p] == nil {
			t.Errorf("schema lacks %s", p)
		}
	}
}

// traveller_skill_lookup takes the seed's skill_name and speciality and
// reads only Traveller material: never the bundled D&D SRD.
func TestTravellerSkillLookupSpecialityOnlyTraveller(t *testing.T) {
	tb := toolbox(t)
	ctx := context.Background()
	ix := tb.Search.(*sqliteindex.Index)
	for _, c := range []chunk.Chunk{
		{Section: []string{"Skills", "Engineer"}, Text: "Engineer (j-drive): maintaining and repairing jump drives. Engineer (power): power plants."},
	} {
		if err := ix.Upsert(ctx, "doc:mgt", "Traveller Core", "mgt", []chunk.Chunk{c}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Upsert(ctx, "srd51", "Gameplay/Skills.md", "srd", []chunk.Chunk{
		{Section: []string{"Skills", "Engineer"}, Text: "Engineer skill of the tinker gnome: repair a jump drive of the clockwork kind."}}); err != nil {
		t.Fatal(err)
	}
	tb.Bundled = map[string]string{"srd51": "d20"}
	tb.Traveller = &Traveller{}
	// Even a chat that selected the SRD gets Traveller skills only.
	tools := tb.Tools(Caller{Role: access.GM, Library: Selection{System: "dnd5e", Packs: []string{"srd51"}}})
	res, err := run(t, tools, TravellerSkillLookup, `{"skill_name":"Engineer","speciality":"j-drive"}`)
	if err != nil || !strings.Contains(res.Content, "Engineer (j-drive)") || strings.Contains(res.Content, "gnome") {
		t.Fatalf("skill: %+v, %v", res, err)
	}
	if _, err := run(t, tools, TravellerSkillLookup, `{"skill":"Engineer"}`); err != nil {
		t.Fatalf("the older skill argument: %v", err)
	}
}

// document_search reads the bundled SRD only when the chat is about its
// system or selects it: a Traveller question never gets D&D "Jumping".
func TestSearchLibrarySelection(t *testing.T) {
	tb := toolbox(t)
	ctx := context.Background()
	ix := tb.Search.(*sqliteindex.Index)
	if err := ix.Upsert(ctx, "doc:mgt", "Traveller Core", "mgt", []chunk.Chunk{
		{Section: []string{"Jump Drives"}, Text: "Jumping: a jump drive takes the ship into jump space for about a week."}}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Upsert(ctx, "srd51", "Gameplay/Movement.md", "srd", []chunk.Chunk{
		{Section: []string{"Movement", "Jumping"}, Text: "Jumping: your Strength determines how far you can jump. Long Jump: you cover feet equal to your Strength score."}}); err != nil {
		t.Fatal(err)
	}
	tb.Bundled = map[string]string{"srd51": "d20"}
	for _, tc := range []struct {
		name    string
		sel     Selection
		srd     bool
		tagOnly bool
	}{
		{"traveller", Selection{System: "mgt2e"}, false, false},
		{"no system", Selection{}, false, false},
		{"dnd5e", Selection{System: "dnd5e"}, true, false},
		{"selected", Selection{System: "mgt2e", Packs: []string{"srd51"}}, true, false},
		{"tags", Selection{System: "dnd5e", Tags: []string{"core"}}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools := tb.Tools(Caller{Role: access.GM, Library: tc.sel})
			res, err := run(t, tools, DocumentSearch, `{"query":"jumping jump","limit":10}`)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(res.Content, "Strength"); got != tc.srd {
				t.Errorf("SRD passage found %v, want %v:\n%s", got, tc.srd, res.Content)
			}
			if got := strings.Contains(res.Content, "jump space"); got == tc.tagOnly {
				t.Errorf("Traveller passage found %v:\n%s", got, res.Content)
			}
		})
	}
}
