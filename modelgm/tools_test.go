package modelgm

import (
	"slices"
	"strings"
	"testing"
)

// cast_spell is a model tool with its arguments described, and the combat
// game master may call it.
func TestCastSpellTool(t *testing.T) {
	ts, err := intentTools()
	if err != nil {
		t.Fatal(err)
	}
	tool, ok := ts["cast_spell"]
	if !ok {
		t.Fatal("cast_spell is not a model tool")
	}
	schema := string(tool.Parameters)
	for _, field := range []string{`"spell"`, `"targets"`, `"slot_level"`, `"caster"`} {
		if !strings.Contains(schema, field) {
			t.Errorf("cast_spell's schema lacks %s: %s", field, schema)
		}
	}
	if !strings.Contains(tool.Description, "slot") {
		t.Errorf("cast_spell's description: %q", tool.Description)
	}
	if !slices.Contains(combat.tools, "cast_spell") {
		t.Error("the combat game master cannot cast spells")
	}
}
