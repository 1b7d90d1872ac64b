package llmassist

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/ingest/pipeline"
	"github.com/hearth-rpg/hearth/ingest/systems"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/structured"
)

const statVersion = "statblock@1"

// StatReader reads the stat blocks the rule-based extractor is unsure of
// with a language model, answering in a JSON schema. It is safe for
// concurrent use if its Provider is.
type StatReader struct {
	Provider llm.Provider
	Model    string
	spec     *structured.Spec[statAnswer]
}

var (
	_ pipeline.StatReader = (*StatReader)(nil)
	_ pipeline.Keyed      = (*StatReader)(nil)
)

// statAnswer is the model's reading of a block.
type statAnswer struct {
	Name       string `json:"name" jsonschema:"the creature's name"`
	Size       string `json:"size" jsonschema:"Tiny, Small, Medium, Large, Huge or Gargantuan"`
	Type       string `json:"type" jsonschema:"creature type, with any subtype in parentheses"`
	Alignment  string `json:"alignment"`
	ArmorClass int    `json:"armor_class" jsonschema:"the first Armor Class number"`
	HitPoints  int    `json:"hit_points" jsonschema:"the average hit points; 0 when the block prints none"`
	HitDice    string `json:"hit_dice" jsonschema:"hit dice as printed without spaces, e.g. 2d6+2; empty when none"`
	Speed      string `json:"speed"`
	Scores     []int  `json:"scores" jsonschema:"the six ability scores in the order STR DEX CON INT WIS CHA"`
	Challenge  string `json:"challenge" jsonschema:"challenge rating as printed, e.g. 1/4 or 10"`
	XP         int    `json:"xp"`
	Attacks    []struct {
		Name       string `json:"name"`
		ToHit      int    `json:"to_hit"`
		Damage     string `json:"damage" jsonschema:"damage dice without spaces, e.g. 1d6+2"`
		DamageType string `json:"damage_type"`
	} `json:"attacks" jsonschema:"the attack actions"`
}

// NewStatReader returns a StatReader asking model on p.
func NewStatReader(p llm.Provider, model string) (*StatReader, error) {
	spec, err := structured.New[statAnswer]("stat_block")
	if err != nil {
		return nil, err
	}
	spec.Check = func(a statAnswer) error {
		switch {
		case strings.TrimSpace(a.Name) == "":
			return errors.New("name is empty")
		case a.ArmorClass <= 0 || a.ArmorClass > 40:
			return fmt.Errorf("armor_class %d is not a 5e Armor Class", a.ArmorClass)
		case len(a.Scores) != 6:
			return fmt.Errorf("scores has %d numbers, want 6", len(a.Scores))
		}
		return nil
	}
	return &StatReader{Provider: p, Model: model, spec: spec}, nil
}

// Key names the model and prompt, for checkpoints.
func (s *StatReader) Key() string { return statVersion + ":" + s.Provider.Name() + "/" + s.Model }

const statSystem = `You read monster stat blocks from tabletop role-playing game books (the 5e layout) and copy their numbers exactly.
The text was extracted from a PDF: lines may be out of order or missing. Copy only what is printed; never invent a number.
Answer with JSON only.`

// ReadStatBlock asks the model to read text; what it answers replaces the
// rules' numbers, and the rules' traits and actions text stay.
func (s *StatReader) ReadStatBlock(ctx context.Context, text string, rule systems.Monster) (systems.Monster, error) {
	if s.spec == nil {
		return rule, errors.New("llmassist: use NewStatReader")
	}
	user := fmt.Sprintf("A rule-based reader was unsure of this stat block: %s.\n\n<stat_block>\n%s\n</stat_block>",
		strings.Join(rule.Problems, "; "), cut(text, defaultSectionChars))
	temp := 0.0
	a, _, err := s.spec.Call(ctx, s.Provider, llm.Request{
		Model:       s.Model,
		Messages:    []llm.Message{{Role: llm.System, Content: statSystem}, {Role: llm.User, Content: user}},
		Temperature: &temp,
		MaxTokens:   800,
	})
	if err != nil {
		return rule, err
	}
	m := rule
	m.Name, m.Size, m.Type, m.Alignment = a.Name, a.Size, a.Type, a.Alignment
	m.AC, m.HP, m.HitDice, m.Speed, m.CR, m.XP = a.ArmorClass, a.HitPoints, strings.ReplaceAll(a.HitDice, " ", ""), a.Speed, a.Challenge, a.XP
	copy(m.Scores[:], a.Scores)
	// Attacks the model read fill in the actions of the same name, or
	// are added.
	for _, at := range a.Attacks {
		atk := &systems.Attack{ToHit: at.ToHit, Damage: strings.ReplaceAll(at.Damage, " ", ""), DamageType: at.DamageType}
		found := false
		for i := range m.Actions {
			if strings.EqualFold(m.Actions[i].Name, at.Name) {
				if m.Actions[i].Attack != nil {
					atk.Kind, atk.Reach, atk.Range, atk.Average = m.Actions[i].Attack.Kind, m.Actions[i].Attack.Reach, m.Actions[i].Attack.Range, m.Actions[i].Attack.Average
				}
				m.Actions[i].Attack, found = atk, true
			}
		}
		if !found {
			m.Actions = append(m.Actions, systems.Feature{Name: at.Name, Attack: atk})
		}
	}
	m.Problems = nil
	return m, nil
}
