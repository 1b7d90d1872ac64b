package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/world"
)

type characterView struct {
	chargen.Saved
	Sheet *world.Character `json:"sheet"`
}

func fighterBody(name string) map[string]any {
	return map[string]any{"name": name, "race": "human", "class": "fighter", "background": "soldier",
		"method": "point_buy", "fighting_style": "defense", "armor": "chain_mail", "weapon": "longsword", "story_seed": 5,
		"scores": map[string]int{"strength": 15, "dexterity": 14, "constitution": 13, "intelligence": 10, "wisdom": 10, "charisma": 8},
		"skills": []string{"perception", "survival"}}
}

func TestCharacterCreateAndLibrary(t *testing.T) {
	f := newFixture(t, fixtureOpts{})

	resp := f.do("POST", "/api/characters", f.plKey, fighterBody("Kestrel"))
	wantStatus(t, resp, http.StatusCreated, "")
	mine := decode[characterView](t, resp)
	ch := mine.Character
	// Human fighter, point buy STR 15 CON 13 → 16 and 14: HP 10 + 2,
	// chain mail 16 + Defense 1, longsword +3 +2 proficiency.
	if mine.ID == "" || ch.MaxHP != 12 || ch.AC != 17 || ch.PointsSpent != 25 || ch.Attack == nil || ch.Attack.Bonus != 5 {
		t.Fatalf("created %+v", mine)
	}
	if s := mine.Sheet; s == nil || s.ID != mine.ID || s.Kind != world.PC || s.HP != 12 || s.Skills["athletics"] != 2 || s.Backstory == "" || len(s.Flaws) != 1 {
		t.Fatalf("sheet %+v", mine.Sheet)
	}

	got := decode[characterView](t, f.do("GET", "/api/characters/"+mine.ID, f.plKey, nil))
	if got.Character.Name != "Kestrel" || got.Sheet == nil || got.Sheet.Backstory != mine.Sheet.Backstory {
		t.Errorf("read back %+v", got)
	}
	list := decode[[]chargen.Saved](t, f.do("GET", "/api/characters", f.plKey, nil))
	if len(list) != 1 || list[0].ID != mine.ID {
		t.Errorf("my library: %+v", list)
	}

	// Another player sees none of it and cannot delete it.
	theirs := f.do("POST", "/api/characters", f.pl2Key, fighterBody("Rook"))
	wantStatus(t, theirs, http.StatusCreated, "")
	theirsID := decode[characterView](t, theirs).ID
	if l := decode[[]chargen.Saved](t, f.do("GET", "/api/characters", f.pl2Key, nil)); len(l) != 1 || l[0].ID != theirsID {
		t.Errorf("the other player's library: %+v", l)
	}
	wantStatus(t, f.do("GET", "/api/characters/"+mine.ID, f.pl2Key, nil), http.StatusNotFound, hearth.NotFound)
	wantStatus(t, f.do("DELETE", "/api/characters/"+mine.ID, f.pl2Key, nil), http.StatusNotFound, hearth.NotFound)

	// The GM sees everyone's.
	if l := decode[[]chargen.Saved](t, f.do("GET", "/api/characters", f.gmKey, nil)); len(l) != 2 {
		t.Errorf("the GM's view: %d characters", len(l))
	}
	wantStatus(t, f.do("GET", "/api/characters/"+theirsID, f.gmKey, nil), http.StatusOK, "")

	// Mine is still there, and I can delete it.
	wantStatus(t, f.do("GET", "/api/characters/"+mine.ID, f.plKey, nil), http.StatusOK, "")
	wantStatus(t, f.do("DELETE", "/api/characters/"+mine.ID, f.plKey, nil), http.StatusNoContent, "")
	wantStatus(t, f.do("GET", "/api/characters/"+mine.ID, f.plKey, nil), http.StatusNotFound, hearth.NotFound)

	// No key, no library.
	wantStatus(t, f.do("GET", "/api/characters", "", nil), http.StatusUnauthorized, "")
	wantStatus(t, f.do("POST", "/api/characters", "", fighterBody("Anon")), http.StatusUnauthorized, "")
}

func TestCharacterCreateRefuses(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	tests := []struct {
		name string
		mut  func(map[string]any)
		want string
	}{
		{"point buy 29", func(b map[string]any) {
			b["scores"] = map[string]int{"strength": 15, "dexterity": 15, "constitution": 15, "intelligence": 10, "wisdom": 8, "charisma": 8}
		}, "point buy spends 29 points; the budget is 27"},
		{"skill twice", func(b map[string]any) { b["skills"] = []string{"perception", "perception"} }, "perception was chosen twice"},
		{"wizard in plate", func(b map[string]any) {
			b["class"], b["skills"], b["armor"], b["fighting_style"] = "wizard", []string{"arcana", "history"}, "plate", ""
		}, "a wizard is not proficient with heavy armor"},
		{"unknown field", func(b map[string]any) { b["hit_points"] = 99 }, "hit_points"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := fighterBody("Bad")
			tt.mut(b)
			resp := f.do("POST", "/api/characters", f.plKey, b)
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", resp.StatusCode)
			}
			e := decode[api.ErrorBody](t, resp)
			if e.Error.Code != hearth.Invalid || !strings.Contains(e.Error.Message, tt.want) {
				t.Errorf("error %+v, want the rule %q", e.Error, tt.want)
			}
		})
	}
	if l := decode[[]chargen.Saved](t, f.do("GET", "/api/characters", f.plKey, nil)); len(l) != 0 {
		t.Errorf("refused builds were saved: %+v", l)
	}
}

func TestCharacterOptions(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	resp := f.do("GET", "/api/characters/options", f.plKey, nil)
	wantStatus(t, resp, http.StatusOK, "")
	c := decode[chargen.Catalog](t, resp)
	if len(c.Classes) != 12 || c.PointBuyBudget != 27 || c.PointBuyCosts[14] != 7 || len(c.Skills) != 18 || !strings.Contains(c.Attribution, "CC-BY-4.0") {
		t.Errorf("options: %d classes, budget %d, costs %v, %d skills", len(c.Classes), c.PointBuyBudget, c.PointBuyCosts, len(c.Skills))
	}
	for _, cl := range c.Classes {
		if cl.ID == "rogue" && (cl.SkillCount != 4 || len(cl.SkillChoices) != 11) {
			t.Errorf("rogue: %d skills from %v", cl.SkillCount, cl.SkillChoices)
		}
	}
}

// TestCharacterPreview: the wizard's step-by-step check builds without
// saving or a backstory, shows a rolled method's rolls, and names the
// field a refusal is about, as POST /api/characters does.
func TestCharacterPreview(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	resp := f.do("POST", "/api/characters/preview", f.plKey, fighterBody("Kestrel"))
	wantStatus(t, resp, http.StatusOK, "")
	ch := decode[chargen.Character](t, resp)
	if ch.MaxHP != 12 || ch.AC != 17 || ch.PointsSpent != 25 || ch.Story != nil {
		t.Errorf("preview %+v", ch)
	}
	rolled := fighterBody("Rolf")
	rolled["method"], rolled["seed"] = "rolled", 42
	delete(rolled, "scores")
	ch = decode[chargen.Character](t, f.do("POST", "/api/characters/preview", f.plKey, rolled))
	if want := chargen.Roll(42); fmt.Sprint(ch.Rolls) != fmt.Sprint(want) || ch.Scores["strength"] != want[0] {
		t.Errorf("rolled with seed 42: rolls %v scores %v, want %v", ch.Rolls, ch.Scores, want)
	}
	if l := decode[[]chargen.Saved](t, f.do("GET", "/api/characters", f.plKey, nil)); len(l) != 0 {
		t.Errorf("previews were saved: %+v", l)
	}

	type refusal struct {
		Error struct {
			Code    hearth.Code `json:"code"`
			Message string      `json:"message"`
			Field   string      `json:"field"`
		} `json:"error"`
	}
	for _, tt := range []struct {
		name, path string
		mut        func(map[string]any)
		field      string
		want       string
	}{
		{"over budget", "/api/characters/preview", func(b map[string]any) {
			b["scores"] = map[string]int{"strength": 15, "dexterity": 15, "constitution": 15, "intelligence": 10, "wisdom": 8, "charisma": 8}
		}, "scores", "the budget is 27"},
		{"over budget, saving", "/api/characters", func(b map[string]any) {
			b["scores"] = map[string]int{"strength": 15, "dexterity": 15, "constitution": 15, "intelligence": 10, "wisdom": 8, "charisma": 8}
		}, "scores", "the budget is 27"},
		{"no name", "/api/characters", func(b map[string]any) { b["name"] = "" }, "name", "needs a name"},
		{"subrace", "/api/characters/preview", func(b map[string]any) { b["race"] = "elf" }, "race", "chooses a subrace"},
		{"style", "/api/characters/preview", func(b map[string]any) { b["fighting_style"] = "" }, "fighting_style", "fighting style"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := fighterBody("Bad")
			tt.mut(b)
			resp := f.do("POST", tt.path, f.plKey, b)
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", resp.StatusCode)
			}
			e := decode[refusal](t, resp)
			if e.Error.Code != hearth.Invalid || e.Error.Field != tt.field || !strings.Contains(e.Error.Message, tt.want) {
				t.Errorf("error %+v, want field %q and %q", e.Error, tt.field, tt.want)
			}
		})
	}
	wantStatus(t, f.do("POST", "/api/characters/preview", "", fighterBody("Anon")), http.StatusUnauthorized, "")
}

// TestCharacterRefusalsByLanguage: a refused build is worded in the
// language of Accept-Language (chargen's own English otherwise), on both
// routes, and still names its field for the form.
func TestCharacterRefusalsByLanguage(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	overBudget := func(b map[string]any) {
		b["scores"] = map[string]int{"strength": 15, "dexterity": 15, "constitution": 15, "intelligence": 10, "wisdom": 8, "charisma": 8}
	}
	elf := func(b map[string]any) { b["race"] = "elf" }
	tests := []struct {
		name, path, lang string
		mut              func(map[string]any)
		field, want      string
	}{
		{"German preview", "/api/characters/preview", "de-DE,de;q=0.9,en;q=0.5", overBudget, "scores", "Der Punktekauf gibt 29 Punkte aus; das Budget ist 27."},
		{"German save", "/api/characters", "de", overBudget, "scores", "Der Punktekauf gibt 29 Punkte aus; das Budget ist 27."},
		{"German subrace", "/api/characters/preview", "de-AT", elf, "race", "Für Volk „Elf“ wählen Sie ein Untervolk: high_elf."},
		{"English", "/api/characters/preview", "en-US", overBudget, "scores", "point buy spends 29 points; the budget is 27"},
		{"English subrace", "/api/characters/preview", "en", elf, "race", "an elf chooses a subrace: high_elf"},
		{"no language", "/api/characters/preview", "", overBudget, "scores", "point buy spends 29 points; the budget is 27"},
		{"no catalog for French", "/api/characters/preview", "fr-FR", overBudget, "scores", "point buy spends 29 points; the budget is 27"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := fighterBody("Bad")
			tt.mut(b)
			j, _ := json.Marshal(b)
			req, err := http.NewRequest("POST", f.url+tt.path, bytes.NewReader(j))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+f.plKey)
			req.Header.Set("Content-Type", "application/json")
			if tt.lang != "" {
				req.Header.Set("Accept-Language", tt.lang)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", resp.StatusCode)
			}
			e := decode[struct {
				Error struct {
					Code    hearth.Code `json:"code"`
					Message string      `json:"message"`
					Field   string      `json:"field"`
				} `json:"error"`
			}](t, resp)
			if e.Error.Code != hearth.Invalid || e.Error.Field != tt.field || e.Error.Message != tt.want {
				t.Errorf("error %+v\nwant field %q and %q", e.Error, tt.field, tt.want)
			}
		})
	}
	if l := decode[[]chargen.Saved](t, f.do("GET", "/api/characters", f.plKey, nil)); len(l) != 0 {
		t.Errorf("refused builds were saved: %+v", l)
	}
}
