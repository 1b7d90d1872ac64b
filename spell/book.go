package spell

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/hearth-rpg/hearth"
)

// Book is a pack's spells, looked up by name. It is read-only once built
// and safe for concurrent use.
type Book struct {
	spells []Spell
	byKey  map[string]int
}

// NewBook indexes spells by name; a later entry of the same name replaces
// an earlier one.
func NewBook(spells []Spell) *Book {
	b := &Book{byKey: make(map[string]int, len(spells))}
	for _, s := range spells {
		k := Key(s.Name)
		if i, ok := b.byKey[k]; ok {
			b.spells[i] = s
			continue
		}
		b.byKey[k] = len(b.spells)
		b.spells = append(b.spells, s)
	}
	return b
}

// Key is a spell name as lookups compare it: lower-case letters and digits
// separated by single spaces ("Blindness/Deafness" is "blindness deafness").
func Key(name string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// Lookup finds a spell by name, case and punctuation aside.
func (b *Book) Lookup(name string) (*Spell, bool) {
	if b == nil {
		return nil, false
	}
	i, ok := b.byKey[Key(name)]
	if !ok {
		return nil, false
	}
	s := b.spells[i]
	return &s, true
}

// Spells returns every spell, in the order the pack lists them.
func (b *Book) Spells() []Spell {
	if b == nil {
		return nil
	}
	return slices.Clone(b.spells)
}

// Len is how many spells the book holds.
func (b *Book) Len() int {
	if b == nil {
		return 0
	}
	return len(b.spells)
}

// Prefix finds the longest spell name that text starts with, word for
// word ("fire bolt the goblin" → Fire Bolt, "the goblin"); ok is false
// when none does.
func (b *Book) Prefix(text string) (s *Spell, rest string, ok bool) {
	words := strings.Fields(text)
	for n := min(len(words), 6); n > 0; n-- {
		if sp, found := b.Lookup(strings.Join(words[:n], " ")); found {
			return sp, strings.Join(words[n:], " "), true
		}
	}
	return nil, text, false
}

// Near returns up to n spell names closest to name (sharing its first
// word or starting alike), for a rejection's suggestions.
func (b *Book) Near(name string, n int) []string {
	k := Key(name)
	if b == nil || k == "" {
		return nil
	}
	first, _, _ := strings.Cut(k, " ")
	var out []string
	for _, s := range b.spells {
		sk := Key(s.Name)
		if strings.Contains(sk, first) || (len(k) >= 3 && strings.HasPrefix(sk, k[:3])) {
			out = append(out, s.Name)
			if len(out) == n {
				break
			}
		}
	}
	return out
}

var (
	listHeadRE = regexp.MustCompile(`^## (\w+) Spells\s*$`)
	listItemRE = regexp.MustCompile(`^[-*] (.+)$`)
)

// ParseLists reads the class spell lists ("## Wizard Spells" then "- Fire
// Bolt" items) into spell key → classes.
func ParseLists(markdown string) map[string][]string {
	out := map[string][]string{}
	class := ""
	for _, line := range strings.Split(strings.ReplaceAll(markdown, "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(line)
		if m := listHeadRE.FindStringSubmatch(line); m != nil {
			class = strings.ToLower(m[1])
			continue
		}
		if strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "# ") {
			class = ""
			continue
		}
		if m := listItemRE.FindStringSubmatch(line); m != nil && class != "" {
			k := Key(emphasis.Replace(m[1]))
			if !slices.Contains(out[k], class) {
				out[k] = append(out[k], class)
			}
		}
	}
	return out
}

// Load reads every Markdown file of a pack's file system and builds its
// book: the spell entries wherever they are, and the classes from any
// file of "## Class Spells" lists.
func Load(fsys fs.FS) (*Book, error) {
	var spells []Spell
	classes := map[string][]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.EqualFold(path.Ext(p), ".md") {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		text := string(b)
		if !strings.Contains(text, "#### ") {
			return nil
		}
		spells = append(spells, Parse(text)...)
		for k, cs := range ParseLists(text) {
			for _, c := range cs {
				if !slices.Contains(classes[k], c) {
					classes[k] = append(classes[k], c)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read spells: %w", err)
	}
	for i := range spells {
		spells[i].Classes = classes[Key(spells[i].Name)]
	}
	return NewBook(spells), nil
}

// srd is the bundled SRD's book, parsed on first use: the pack is part of
// the binary and never changes, so one parse serves every game.
var srd = sync.OnceValues(func() (*Book, error) {
	sub, err := fs.Sub(hearth.Packs, "packs/srd51")
	if err != nil {
		return nil, err
	}
	return Load(sub)
})

// SRD returns the spells of the bundled srd51 pack.
func SRD() (*Book, error) { return srd() }
