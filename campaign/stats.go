package campaign

import (
	"cmp"
	"encoding/json"
	"path"
	"strings"

	"github.com/hearth-rpg/hearth/pack"
	"github.com/hearth-rpg/hearth/world"
)

// loadStat reads a stat: stats/*.json or .yml (seed 001 §6.2.8), or a
// stat_*.yml in the §6.2.5 form (entity_id, display_name,
// starting_value, visible, tooltip). It returns the stat's id.
func (c *Campaign) loadStat(rel string, fm pack.Frontmatter, errs *pack.Problems) string {
	var raw struct {
		ID       string `json:"id"`
		EntityID string `json:"entity_id"`
		Range    *struct {
			Min *int `json:"min"`
			Max *int `json:"max"`
		} `json:"range"`
		Default       *int   `json:"default"`
		StartingValue *int   `json:"starting_value"`
		Display       string `json:"display"`
		Label         string `json:"label"`
		DisplayName   string `json:"display_name"`
		Category      string `json:"category"`
		Hidden        bool   `json:"hidden"`
		Visible       *bool  `json:"visible"`
		Prompt        string `json:"behavioral_prompt"`
		Tooltip       string `json:"tooltip"`
	}
	if err := viaJSON(fm.Values, &raw); err != nil {
		errs.Add(rel, lineOf(fm, err), "%v", err)
		return ""
	}
	stem := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	stem = strings.TrimPrefix(stem, "stat_")
	raw.ID = cmp.Or(raw.ID, raw.EntityID, stem)
	raw.Label = cmp.Or(raw.Label, raw.DisplayName)
	raw.Prompt = cmp.Or(raw.Prompt, raw.Tooltip)
	if raw.Default == nil {
		raw.Default = raw.StartingValue
	}
	if raw.Visible != nil && !*raw.Visible {
		raw.Hidden = true
	}
	c.pending = &source{rel, fm}
	defer func() { c.pending = nil }()
	if raw.Range == nil || raw.Range.Min == nil || raw.Range.Max == nil {
		errs.Add(rel, fm.Lines["range"], "stat %q needs a range with min and max, e.g. \"range\": {\"min\": 0, \"max\": 100}", raw.ID)
		return raw.ID
	}
	d := world.StatDef{ID: raw.ID, Label: raw.Label, Min: *raw.Range.Min, Max: *raw.Range.Max, Display: raw.Display,
		Category: raw.Category, Hidden: raw.Hidden || strings.Contains(rel, "/hidden/"), Prompt: raw.Prompt}
	if d.Max < d.Min {
		errs.Add(rel, fm.Lines["range"], "stat %q: range max %d is below min %d", d.ID, d.Max, d.Min)
		return raw.ID
	}
	d.Default = d.Min
	if raw.Default != nil {
		d.Default = *raw.Default
		if d.Default < d.Min || d.Default > d.Max {
			errs.Add(rel, fm.Lines[pack.FirstKey(fm, "default", "starting_value")], "stat %q: default %d is outside its range %d..%d", d.ID, d.Default, d.Min, d.Max)
		}
	}
	if d.Label == "" {
		parts := strings.Split(d.ID, ".")
		d.Label = titleCase(parts[len(parts)-1])
	}
	if d.Category == "" {
		d.Category = "general"
	}
	switch d.Display {
	case "", "bar", "number", "hearts", "pips", "ring", "hidden":
	default:
		errs.Add(rel, fm.Lines["display"], "display %q: use bar, number, hearts, pips, ring or hidden", d.Display)
	}
	if c.define("stat", d.ID, rel, errs, rel, 1) {
		c.Stats[d.ID] = &d
		c.src["stat:"+d.ID] = source{rel, fm}
	}
	return d.ID
}

// loadItem reads items/*.json or .yml, or an item_*.yml, and returns the
// item's id.
func (c *Campaign) loadItem(rel string, fm pack.Frontmatter, errs *pack.Problems) string {
	c.pending = &source{rel, fm}
	defer func() { c.pending = nil }()
	return c.itemFrom(rel, fm.Values, fm, "", errs)
}

func (c *Campaign) itemFrom(rel string, v map[string]any, fm pack.Frontmatter, body string, errs *pack.Problems) string {
	var it world.Item
	if err := viaJSON(v, &it); err != nil {
		errs.Add(rel, lineOf(fm, err), "%v", err)
		return ""
	}
	id := it.ID
	if id == "" {
		id = str(v["entity_id"])
	}
	if id == "" {
		stem := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
		stem = strings.TrimPrefix(stem, "item_")
		if i := strings.LastIndexByte(stem, '.'); i >= 0 { // weapon.short_sword
			stem = stem[i+1:]
		}
		id = stem
	}
	it.ID = id
	for _, k := range []string{"label", "display_name"} {
		if s := str(v[k]); s != "" && it.Name == "" {
			it.Name = s
		}
	}
	if it.Name == "" {
		it.Name = titleCase(id)
	}
	if it.Description == "" {
		it.Description = str(v["behavioral_prompt"])
	}
	if it.Description == "" {
		it.Description = body
	}
	if it.Flavor == "" {
		it.Flavor = str(v["flavor_text"])
	}
	if raw, ok := v["properties"].(map[string]any); ok {
		// seed 001's item_excalibur.yml keeps numbers under properties.
		if n, ok := raw["damage_bonus"].(int); ok && it.Damage != "" {
			it.Damage += "+" + itoa(n)
		}
	}
	if it.Damage != "" {
		if _, err := json.Marshal(it.Damage); err != nil {
			errs.Add(rel, fm.Lines["damage"], "damage: %v", err)
		}
	}
	if c.define("item", id, rel, errs, rel, 1) {
		c.Items[id] = &it
		c.src["item:"+id] = source{rel, fm}
	}
	return id
}
