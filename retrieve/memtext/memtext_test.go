package memtext

import (
	"testing"

	"github.com/hearth-rpg/hearth/retrieve"
)

func TestAccept(t *testing.T) {
	var c Columns
	// rows 10, 20, 30, 40: access levels and columns
	c.Add(0, [NumColumns]string{"srd", "rules", "pack", "", ""})
	c.Add(2, [NumColumns]string{"srd", "lore", "pack", "quay", ""})
	c.Add(0, [NumColumns]string{"camp", "lore", "campaign", "quay", "smugglers"})
	c.Add(300, [NumColumns]string{"camp", "rules", "campaign", "", "smugglers"})
	rows := []int64{10, 20, 30, 40}
	tests := []struct {
		name    string
		role    int
		f       retrieve.Filter
		keyed   bool
		allowed []int64
		want    []int
	}{
		{"a player sees level 0", 0, retrieve.Filter{}, false, nil, []int{0, 2}},
		{"levels clamp at 255", 255, retrieve.Filter{}, false, nil, []int{0, 1, 2, 3}},
		{"packs", 3, retrieve.Filter{Packs: []string{"camp"}}, false, nil, []int{2}},
		{"excluded packs", 3, retrieve.Filter{ExcludePacks: []string{"srd"}}, false, nil, []int{2}},
		{"content type", 3, retrieve.Filter{ContentTypes: []string{"lore"}}, false, nil, []int{1, 2}},
		{"location", 3, retrieve.Filter{Location: "quay"}, false, nil, []int{1, 2}},
		{"faction", 255, retrieve.Filter{Faction: "smugglers"}, false, nil, []int{2, 3}},
		{"a value nobody has", 255, retrieve.Filter{Location: "moon"}, false, nil, nil},
		{"keyed rows", 255, retrieve.Filter{}, true, []int64{20, 40}, []int{1, 3}},
		{"keyed and nothing allowed", 255, retrieve.Filter{}, true, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok := c.Accept(tt.role, tt.f, rows, tt.keyed, tt.allowed)
			var got []int
			for d := range rows {
				if ok(d) {
					got = append(got, d)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("accepted %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("accepted %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestKeyed(t *testing.T) {
	if !Keyed(retrieve.Filter{Packs: []string{"srd"}, Location: "quay"}).IsZero() {
		t.Error("a filter of columns only has a keyed part")
	}
	if Keyed(retrieve.Filter{Tags: []string{"undead"}}).IsZero() {
		t.Error("a tag filter has no keyed part")
	}
}
