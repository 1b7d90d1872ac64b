package chargen

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func mustBuild(t *testing.T, c Choices) *Character {
	t.Helper()
	ch, err := Build(c)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func cleric(t *testing.T) *Character {
	return mustBuild(t, Choices{Name: "Ysolde", Race: "hill_dwarf", Class: "cleric", Background: "acolyte", Method: StandardArrayMethod,
		Scores: array("wisdom", "constitution", "strength", "charisma", "dexterity", "intelligence"), Skills: []string{"medicine", "persuasion"}})
}

func TestTemplateStory(t *testing.T) {
	ctx := context.Background()
	ch := cleric(t)
	var st Storyteller = Templates{}
	a, err := st.Story(ctx, ch, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := st.Story(ctx, ch, 7)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the same seed told two stories:\n%+v\n%+v", a, b)
	}
	bg := backgrounds["acolyte"]
	if len(a.PersonalityTraits) != 2 || a.PersonalityTraits[0] == a.PersonalityTraits[1] {
		t.Errorf("want two different traits, got %q", a.PersonalityTraits)
	}
	for _, tr := range a.PersonalityTraits {
		if !slices.Contains(bg.Traits, tr) {
			t.Errorf("trait %q is not the acolyte's", tr)
		}
	}
	if !slices.Contains(bg.Ideals, a.Ideals[0]) || !slices.Contains(bg.Bonds, a.Bonds[0]) || !slices.Contains(bg.Flaws, a.Flaws[0]) {
		t.Errorf("ideal, bond or flaw not from the background: %+v", a)
	}
	if !strings.Contains(a.Backstory, "Ysolde") || !strings.Contains(a.Backstory, "cleric") && !strings.Contains(a.Backstory, "voice in a quiet hour") {
		t.Errorf("backstory does not use the choices: %q", a.Backstory)
	}
	// Some seed in a handful tells a different story: the seed matters.
	differs := false
	for seed := uint64(8); seed < 16 && !differs; seed++ {
		c, _ := st.Story(ctx, ch, seed)
		differs = !reflect.DeepEqual(a, c)
	}
	if !differs {
		t.Error("eight seeds told the same story")
	}
}

// Every background has enough characteristics to pick from.
func TestBackgroundsHaveCharacteristics(t *testing.T) {
	for id, bg := range backgrounds {
		if len(bg.Traits) < 2 || len(bg.Ideals) == 0 || len(bg.Bonds) == 0 || len(bg.Flaws) == 0 || len(bg.Past) == 0 || len(bg.Skills) != 2 {
			t.Errorf("%s: %d traits, %d ideals, %d bonds, %d flaws, %d pasts, %d skills", id,
				len(bg.Traits), len(bg.Ideals), len(bg.Bonds), len(bg.Flaws), len(bg.Past), len(bg.Skills))
		}
	}
	for id := range classes {
		if len(turns[id]) == 0 {
			t.Errorf("class %s has no backstory template", id)
		}
	}
}
