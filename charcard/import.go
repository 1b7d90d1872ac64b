package charcard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/world"
)

// Roles a card can be imported as.
const (
	AsNPC = "npc"
	AsPC  = "pc"
)

// Options say where and how a card is imported.
type Options struct {
	// Dir is the campaign (or pack) directory written into; it must hold
	// campaign.yml or pack.yml.
	Dir string
	// As is AsNPC (the default) or AsPC.
	As string
	// ID is the entity id; default the card's name as a slug.
	ID string
	// Location places an NPC (a location id of the campaign).
	Location string
	// User replaces the {{user}} macro; default "traveller".
	User string
	// Force overwrites files an earlier import wrote.
	Force bool
}

// Report is what Import wrote and what it left out.
type Report struct {
	ID    string
	Files []string // paths written, relative to Dir
	// Party is set when a PC joined campaign.yml's party.
	Party bool
	// Skipped names the card's fields that were not imported, and why.
	Skipped []string
	// Warnings are the lorebook's (keys that cannot run and the like).
	Warnings []string
}

// Import writes c into the campaign at o.Dir: as an NPC, npc_ID.md; as a
// PC, player_ID.md with a level-1 sheet to finish, added to
// campaign.yml's party (a pack has no party). The card's lorebook becomes
// lorebooks/ID.json, which the campaign loads as keyword lore.
// {{char}} and {{user}} are replaced throughout. Existing files are a
// Conflict unless o.Force.
func Import(ctx context.Context, c *Card, o Options) (Report, error) {
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	as := o.As
	if as == "" {
		as = AsNPC
	}
	if as != AsNPC && as != AsPC {
		return Report{}, hearth.Errorf(hearth.Invalid, "import as %q: use npc or pc", o.As)
	}
	manifest, err := manifestOf(o.Dir)
	if err != nil {
		return Report{}, err
	}
	if as == AsNPC && filepath.Base(manifest) != "pack.yml" {
		if err := checkLocation(ctx, o.Dir, o.Location); err != nil {
			return Report{}, err
		}
	}
	id := o.ID
	if id == "" {
		id = Slug(c.Name)
	}
	if id != Slug(id) {
		return Report{}, hearth.Errorf(hearth.Invalid, "id %q: use lower-case letters, digits and _ (e.g. %q)", id, Slug(id))
	}
	user := o.User
	if user == "" {
		user = "traveller"
	}
	c = c.expand(user)
	r := Report{ID: id, Skipped: skipped(c)}

	type file struct {
		rel  string
		data []byte
	}
	var files []file
	prefix := "npc_"
	if as == AsPC {
		prefix = "player_"
	}
	files = append(files, file{prefix + id + ".md", entityFile(c, as, o.Location)})
	if c.HasBook() {
		b, err := c.Book()
		if err != nil {
			return Report{}, err
		}
		for _, w := range b.Warnings {
			r.Warnings = append(r.Warnings, w.String())
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, c.bookJSON(), "", "  "); err != nil {
			return Report{}, hearth.Errorf(hearth.Internal, "card %q: lorebook: %v", c.Name, err)
		}
		buf.WriteByte('\n')
		files = append(files, file{filepath.Join("lorebooks", id+".json"), buf.Bytes()})
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(o.Dir, f.rel)); err == nil && !o.Force {
			return Report{}, hearth.Errorf(hearth.Conflict, "%s exists already: import with another id, or overwrite it with --force", filepath.Join(o.Dir, f.rel))
		}
	}
	var party []byte
	if as == AsPC && filepath.Base(manifest) == "campaign.yml" {
		if party, err = joinParty(manifest, id); err != nil {
			return Report{}, err
		}
	}
	for _, f := range files {
		p := filepath.Join(o.Dir, f.rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return Report{}, err
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return Report{}, err
		}
		r.Files = append(r.Files, f.rel)
	}
	if party != nil {
		if err := os.WriteFile(manifest, party, 0o644); err != nil {
			return Report{}, err
		}
		r.Party = true
		r.Files = append(r.Files, filepath.Base(manifest))
	}
	return r, nil
}

// manifestOf finds the campaign's or pack's manifest in dir.
func manifestOf(dir string) (string, error) {
	for _, name := range []string{"campaign.yml", "scenario.yml", "pack.yml"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	return "", hearth.Errorf(hearth.NotFound, "%s holds no campaign.yml or pack.yml: give a campaign directory", dir)
}

// checkLocation makes sure an NPC of a campaign is placed somewhere the
// campaign has: the game needs to know where to find it.
func checkLocation(ctx context.Context, dir, loc string) error {
	p, err := campaign.LoadPack(ctx, dir)
	if err != nil {
		return err
	}
	known := world.SortedKeys(p.Content.Locations)
	if loc == "" {
		return hearth.Errorf(hearth.Invalid, "an NPC of a campaign needs a location: give one of %s", strings.Join(known, ", "))
	}
	if p.Content.Locations[loc] == nil && len(known) > 0 {
		return hearth.Errorf(hearth.Invalid, "location %q is not in the campaign; give one of %s", loc, strings.Join(known, ", "))
	}
	return nil
}

// expand returns a copy of c with the {{char}} and {{user}} macros
// replaced, in the card's text and its lorebook.
func (c *Card) expand(user string) *Card {
	cp := *c
	r := strings.NewReplacer("{{char}}", c.Name, "{{Char}}", c.Name, "<BOT>", c.Name, "{{user}}", user, "{{User}}", user, "<USER>", user)
	for _, s := range []*string{&cp.Description, &cp.Personality, &cp.Scenario, &cp.FirstMes, &cp.MesExample, &cp.CreatorNotes} {
		*s = r.Replace(*s)
	}
	if cp.HasBook() {
		// JSON-escaped names are replaced inside JSON strings.
		esc := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
		jr := strings.NewReplacer("{{char}}", esc(c.Name), "{{Char}}", esc(c.Name), "{{user}}", esc(user), "{{User}}", esc(user))
		cp.CharacterBook = json.RawMessage(jr.Replace(string(c.CharacterBook)))
	}
	return &cp
}

func skipped(c *Card) []string {
	var out []string
	add := func(set bool, what string) {
		if set {
			out = append(out, what)
		}
	}
	add(c.SystemPrompt != "", "system_prompt: an instruction to a chat model; Hearth's game master has its own")
	add(c.PostHistoryInstructions != "", "post_history_instructions: an instruction to a chat model")
	add(len(c.AlternateGreetings) > 0, fmt.Sprintf("alternate_greetings: %d kept out; the first message is the greeting", len(c.AlternateGreetings)))
	add(len(c.GroupOnlyGreetings) > 0, "group_only_greetings: group chats have no counterpart in a game")
	add(len(c.Assets) > 0, fmt.Sprintf("assets: %d not copied; put the portrait under art/ with a .keywords.txt", len(c.Assets)))
	ext := bytes.TrimSpace(c.Extensions)
	add(len(ext) > 0 && !bytes.Equal(ext, []byte("{}")) && !bytes.Equal(ext, []byte("null")), "extensions: front-end settings")
	return out
}

// entityFile is the card as a campaign entity: frontmatter for the facts,
// the description, scenario and example dialogue as prose.
func entityFile(c *Card, as, location string) []byte {
	type sheet struct {
		EntityType  string         `yaml:"entity_type"`
		Name        string         `yaml:"name"`
		Aliases     []string       `yaml:"aliases,omitempty"`
		Location    string         `yaml:"location,omitempty"`
		Personality string         `yaml:"personality,omitempty"`
		Greeting    string         `yaml:"greeting,omitempty"`
		Tags        []string       `yaml:"tags,omitempty"`
		Level       int            `yaml:"level,omitempty"`
		Abilities   map[string]int `yaml:"abilities,omitempty"`
		HP          int            `yaml:"hit_points,omitempty"`
		AC          int            `yaml:"armor_class,omitempty"`
		Source      string         `yaml:"source"`
	}
	s := sheet{
		EntityType:  "npc",
		Name:        c.Name,
		Location:    location,
		Personality: strings.TrimSpace(c.Personality),
		Greeting:    strings.TrimSpace(c.FirstMes),
		Tags:        c.Tags,
		Source:      source(c),
	}
	if c.Nickname != "" && c.Nickname != c.Name {
		s.Aliases = []string{c.Nickname}
	}
	if as == AsPC {
		// A card has no mechanics: an average level-1 sheet to finish by hand.
		s.EntityType, s.Location = "player_character", ""
		s.Level, s.HP, s.AC = 1, 10, 10
		s.Abilities = map[string]int{"strength": 10, "dexterity": 10, "constitution": 10, "intelligence": 10, "wisdom": 10, "charisma": 10}
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	_ = enc.Encode(s) // plain strings and numbers always encode
	_ = enc.Close()
	b.WriteString("---\n")
	section := func(title, text string) {
		if text = strings.TrimSpace(text); text != "" {
			if title != "" {
				fmt.Fprintf(&b, "\n## %s\n\n", title)
			} else {
				b.WriteByte('\n')
			}
			b.WriteString(text)
			b.WriteByte('\n')
		}
	}
	section("", c.Description)
	section("Scenario", c.Scenario)
	section("Example dialogue", c.MesExample)
	section("Creator's notes", c.CreatorNotes)
	return b.Bytes()
}

func source(c *Card) string {
	s := "character card " + string(c.Spec)
	if c.Creator != "" {
		s += " by " + c.Creator
	}
	if c.CharacterVersion != "" {
		s += ", version " + c.CharacterVersion
	}
	return s
}

// joinParty returns campaign.yml with id added to its party: appended to
// party:, or a party of the current player and id, or id as the player.
// Comments are kept.
func joinParty(manifest, id string) ([]byte, error) {
	b, err := os.ReadFile(manifest)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, hearth.Errorf(hearth.Invalid, "%s: %v", manifest, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, hearth.Errorf(hearth.Invalid, "%s: want a YAML mapping", manifest)
	}
	m := doc.Content[0]
	value := func(key string) *yaml.Node {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i+1]
			}
		}
		return nil
	}
	// Edited as text, so the author's formatting and comments stay as
	// they were; the nodes say where.
	text := string(b)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	lines := strings.SplitAfter(text, "\n") // ends with ""
	switch party, player := value("party"), value("player"); {
	case party != nil && party.Kind == yaml.SequenceNode:
		for _, n := range party.Content {
			if n.Value == id || (n.Kind == yaml.MappingNode && len(n.Content) > 1 && n.Content[1].Value == id) {
				return nil, hearth.Errorf(hearth.Conflict, "%s: %q is in the party already", manifest, id)
			}
		}
		if party.Style&yaml.FlowStyle != 0 || len(party.Content) == 0 {
			l := lines[party.Line-1]
			end := strings.Index(l[party.Column-1:], "]")
			if end < 0 {
				return nil, hearth.Errorf(hearth.Invalid, "%s: party: spans several lines; add %q to it by hand", manifest, id)
			}
			end += party.Column - 1
			sep := ", "
			if len(party.Content) == 0 {
				sep = ""
			}
			lines[party.Line-1] = l[:end] + sep + id + l[end:]
			break
		}
		// A block list: a new item after its last, before the next key.
		at := len(lines) - 1
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i+1] == party && i+2 < len(m.Content) {
				at = m.Content[i+2].Line - 1
			}
		}
		for at-1 > party.Line-1 && (strings.TrimSpace(lines[at-1]) == "" || strings.HasPrefix(lines[at-1], "#")) {
			at--
		}
		item := strings.Repeat(" ", max(party.Content[0].Column-3, 0)) + "- " + id + "\n"
		lines = slices.Insert(lines, at, item)
	case party != nil:
		return nil, hearth.Errorf(hearth.Invalid, "%s: party: want a list", manifest)
	case player != nil && player.Value != "":
		lines = append(lines, fmt.Sprintf("party: [%s, %s]\n", player.Value, id))
	default:
		lines = append(lines, "player: "+id+"\n")
	}
	out := []byte(strings.Join(lines, ""))
	// The edit must say what was meant.
	var check struct {
		Party []yaml.Node `yaml:"party"`
	}
	if err := yaml.Unmarshal(out, &check); err != nil {
		return nil, hearth.Errorf(hearth.Internal, "%s: the party edit broke the file: %v", manifest, err)
	}
	return out, nil
}

// Slug is name as an entity id: lower-case letters and digits joined by _.
func Slug(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	out := strings.TrimSuffix(b.String(), "_")
	if out == "" {
		return "character"
	}
	return out
}
