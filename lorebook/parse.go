package lorebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/hearth-rpg/hearth"
)

// Import limits. A lorebook is authored text; anything larger is a mistake
// or an attack, and is refused before it is decoded.
const (
	MaxBytes   = 8 << 20 // size of the file
	MaxEntries = 10_000  // entries in one book
)

var (
	// ErrTooLarge reports input over MaxBytes or with more than MaxEntries entries.
	ErrTooLarge = &hearth.Error{Code: hearth.Invalid, Message: "lorebook too large"}
	// ErrFormat reports input that is not a lorebook Hearth can read.
	ErrFormat = &hearth.Error{Code: hearth.Invalid, Message: "not a lorebook"}
)

// Parse imports a SillyTavern World Info file, a Character Card V2 or V3 in
// JSON form (its data.character_book), a standalone V3 lorebook or a bare
// character_book object; the format is detected from the content.
//
// Unknown fields are ignored. Errors name the field's path, e.g.
// `entries["3"].order: want a number, got a string "high"`. Problems that
// leave the rest of the book usable (a regex key RE2 cannot run, a decorator
// Hearth does not know) become Book.Warnings instead.
func Parse(data []byte) (*Book, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("lorebook: %d bytes is more than the %d allowed: %w", len(data), MaxBytes, ErrTooLarge)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a BOM some editors write
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("lorebook: want a JSON object: %v: %w", err, ErrFormat)
	}
	if top == nil {
		return nil, fmt.Errorf("lorebook: want a JSON object, got null: %w", ErrFormat)
	}
	root := &object{path: "$", fields: top}
	spec, err := root.str("", "spec")
	if err != nil {
		return nil, fmt.Errorf("lorebook: %w", err)
	}
	var b *Book
	switch {
	case spec == "chara_card_v2" || spec == "chara_card_v3":
		b, err = parseCard(top, Format(spec))
	case spec == "lorebook_v3":
		raw, ok := top["data"]
		if !ok || isNull(raw) {
			return nil, fmt.Errorf("lorebook: $.data: missing; a lorebook_v3 file keeps its book in data: %w", ErrFormat)
		}
		b, err = parseCharacterBook(raw, "$.data", LorebookV3)
	case spec != "":
		return nil, fmt.Errorf("lorebook: $.spec: %q is not chara_card_v2, chara_card_v3 or lorebook_v3: %w", spec, ErrFormat)
	case top["entries"] != nil:
		if e := bytes.TrimSpace(top["entries"]); len(e) > 0 && e[0] == '[' {
			b, err = parseCharacterBook(data, "$", CharacterBook)
		} else {
			b, err = parseWorldInfo(top)
		}
	case top["data"] != nil:
		// A card that lost its spec field (some V1 tools): read it as V2.
		b, err = parseCard(top, CardV2)
	default:
		return nil, fmt.Errorf("lorebook: no \"entries\" and no \"spec\": want a SillyTavern World Info file or a Character Card V2/V3 JSON: %w", ErrFormat)
	}
	if err != nil {
		return nil, fmt.Errorf("lorebook: %w", err)
	}
	if err := b.finish(); err != nil {
		return nil, fmt.Errorf("lorebook: %w", err)
	}
	return b, nil
}

func parseCard(top map[string]json.RawMessage, f Format) (*Book, error) {
	raw, ok := top["data"]
	if !ok || isNull(raw) {
		return nil, fmt.Errorf("$.data: missing: %w", ErrFormat)
	}
	data, err := decodeObject(raw, "$.data")
	if err != nil {
		return nil, err
	}
	cb, ok := data["character_book"]
	if !ok || isNull(cb) {
		return nil, fmt.Errorf("$.data.character_book: missing; this card has no embedded lorebook: %w", ErrFormat)
	}
	b, err := parseCharacterBook(cb, "$.data.character_book", f)
	if err != nil {
		return nil, err
	}
	if b.Name == "" {
		d := &object{path: "$.data", fields: data}
		b.Name, _ = d.str("", "name")
	}
	return b, nil
}

// parseCharacterBook reads the V2/V3 Lorebook object: book settings and an
// entries array, each entry with SillyTavern's extras in its extensions.
func parseCharacterBook(raw json.RawMessage, path string, f Format) (*Book, error) {
	m, err := decodeObject(raw, path)
	if err != nil {
		return nil, err
	}
	o := &object{path: path, fields: m}
	b := &Book{Format: f}
	if b.Name, err = o.str("", "name"); err != nil {
		return nil, err
	}
	if b.ScanDepth, err = o.integer(0, "scan_depth"); err != nil {
		return nil, err
	}
	if b.TokenBudget, err = o.integer(0, "token_budget"); err != nil {
		return nil, err
	}
	b.ScanDepth = min(max(b.ScanDepth, 0), MaxScanDepth)
	b.TokenBudget = max(b.TokenBudget, 0)
	rec, set, err := o.optBool("recursive_scanning")
	if err != nil {
		return nil, err
	}
	b.NoRecursion = set && !rec

	var list []json.RawMessage
	if raw, ok := m["entries"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("%s.entries: want a list, got %s", path, describe(raw))
		}
	}
	if len(list) > MaxEntries {
		return nil, fmt.Errorf("%s.entries: %d entries is more than the %d allowed: %w", path, len(list), MaxEntries, ErrTooLarge)
	}
	for i, raw := range list {
		p := fmt.Sprintf("%s.entries[%d]", path, i)
		fields, err := decodeObject(raw, p)
		if err != nil {
			return nil, err
		}
		o := &object{path: p, fields: fields, extFirst: true}
		if ext, ok := fields["extensions"]; ok && !isNull(ext) {
			if o.ext, err = decodeObject(ext, p+".extensions"); err != nil {
				return nil, err
			}
		}
		e, err := readEntry(o, i, true, b)
		if err != nil {
			return nil, err
		}
		e.hash = hashEntry(raw)
		b.Entries = append(b.Entries, e)
	}
	return b, nil
}

// parseWorldInfo reads SillyTavern's own file: entries keyed by uid.
func parseWorldInfo(top map[string]json.RawMessage) (*Book, error) {
	b := &Book{Format: SillyTavern}
	root := &object{path: "$", fields: top}
	var err error
	if b.Name, err = root.str("", "name"); err != nil {
		return nil, err
	}
	entries, err := decodeObject(top["entries"], "$.entries")
	if err != nil {
		return nil, err
	}
	if len(entries) > MaxEntries {
		return nil, fmt.Errorf("$.entries: %d entries is more than the %d allowed: %w", len(entries), MaxEntries, ErrTooLarge)
	}
	// JavaScript visits integer-like keys in ascending order; so do we, and
	// any other keys after them in byte order.
	names := make([]string, 0, len(entries))
	for k := range entries {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		a, aerr := strconv.Atoi(names[i])
		c, cerr := strconv.Atoi(names[j])
		switch {
		case aerr == nil && cerr == nil:
			return a < c
		case aerr == nil:
			return true
		case cerr == nil:
			return false
		}
		return names[i] < names[j]
	})
	for i, name := range names {
		raw := entries[name]
		p := "$.entries[" + strconv.Quote(name) + "]"
		fields, err := decodeObject(raw, p)
		if err != nil {
			return nil, err
		}
		o := &object{path: p, fields: fields}
		if ext, ok := fields["extensions"]; ok && !isNull(ext) {
			// Some tools keep card-style fields here; read them only when
			// the entry itself does not say.
			if o.ext, err = decodeObject(ext, p+".extensions"); err != nil {
				return nil, err
			}
		}
		fallback := i
		if n, err := strconv.Atoi(name); err == nil {
			fallback = n
		}
		e, err := readEntry(o, fallback, false, b)
		if err != nil {
			return nil, err
		}
		e.hash = hashEntry(raw)
		b.Entries = append(b.Entries, e)
	}
	return b, nil
}

// readEntry reads one entry. card selects the defaults SillyTavern's
// convertCharacterBook applies to card entries (selective off, position
// after the character) instead of its World Info template.
func readEntry(o *object, fallbackUID int, card bool, b *Book) (Entry, error) {
	var e Entry
	var err error
	check := func(e error) {
		if err == nil {
			err = e
		}
	}
	uid, ok, uerr := o.optInt("uid", "id")
	if uerr != nil {
		// A V3 id may be any string; fall back to the entry's slot.
		raw, path := o.find("uid", "id")
		b.warn(fallbackUID, fmt.Sprintf("%s is %s, not a whole number; using %d", path, describe(raw), fallbackUID))
		ok = false
	}
	if !ok {
		uid = fallbackUID
	}
	e.UID = uid

	var x error
	e.Keys, x = o.keys("key", "keys")
	check(x)
	e.SecondaryKeys, x = o.keys("keysecondary", "secondary_keys")
	check(x)
	e.Comment, x = o.str("", "comment", "name")
	check(x)
	e.Content, x = o.str("", "content")
	check(x)
	e.Constant, x = o.boolean(false, "constant")
	check(x)
	e.Selective, x = o.boolean(!card, "selective")
	check(x)
	logic, x := o.integer(0, "selectiveLogic", "selective_logic")
	check(x)
	if logic < 0 || logic > 3 {
		raw, path := o.find("selectiveLogic", "selective_logic")
		check(fmt.Errorf("%s: %s is not 0 (AND ANY), 1 (NOT ALL), 2 (NOT ANY) or 3 (AND ALL)", path, describe(raw)))
	}
	e.Logic = Logic(logic)
	e.Order, x = o.integer(100, "order", "insertion_order")
	check(x)
	e.Priority, x = o.integer(0, "priority")
	check(x)
	e.Position, x = readPosition(o, card)
	check(x)
	e.Depth, x = o.integer(4, "depth")
	check(x)
	role, x := o.integer(0, "role")
	check(x)
	e.Role = Role(role)
	if o.has("disable") {
		e.Disabled, x = o.boolean(false, "disable")
	} else {
		var enabled bool
		enabled, x = o.boolean(true, "enabled")
		e.Disabled = !enabled
	}
	check(x)
	e.UseRegex, x = o.boolean(false, "use_regex", "useRegex")
	check(x)
	e.ExcludeRecursion, x = o.boolean(false, "excludeRecursion", "exclude_recursion")
	check(x)
	e.PreventRecursion, x = o.boolean(false, "preventRecursion", "prevent_recursion")
	check(x)
	e.DelayUntilRecursion, x = readDelayLevel(o)
	check(x)
	e.Probability, x = o.number(100, "probability")
	check(x)
	e.UseProbability, x = o.boolean(true, "useProbability", "use_probability")
	check(x)
	e.Group, x = o.str("", "group")
	check(x)
	e.GroupOverride, x = o.boolean(false, "groupOverride", "group_override")
	check(x)
	e.GroupWeight, x = o.number(100, "groupWeight", "group_weight")
	check(x)
	e.UseGroupScoring, x = optBool(o, "useGroupScoring", "use_group_scoring")
	check(x)
	e.CaseSensitive, x = optBool(o, "caseSensitive", "case_sensitive")
	check(x)
	e.MatchWholeWords, x = optBool(o, "matchWholeWords", "match_whole_words")
	check(x)
	if d, ok, derr := o.optInt("scanDepth", "scan_depth"); derr != nil {
		check(derr)
	} else if ok {
		d = min(max(d, 0), MaxScanDepth)
		e.ScanDepth = &d
	}
	e.Sticky, x = o.integer(0, "sticky")
	check(x)
	e.Cooldown, x = o.integer(0, "cooldown")
	check(x)
	e.Delay, x = o.integer(0, "delay")
	check(x)
	e.IgnoreBudget, x = o.boolean(false, "ignoreBudget", "ignore_budget")
	check(x)
	if err != nil {
		return Entry{}, err
	}
	e.Sticky, e.Cooldown, e.Delay = max(e.Sticky, 0), max(e.Cooldown, 0), max(e.Delay, 0)
	return e, nil
}

func optBool(o *object, names ...string) (*bool, error) {
	v, ok, err := o.optBool(names...)
	if err != nil || !ok {
		return nil, err
	}
	return &v, nil
}

// readPosition takes SillyTavern's number, or the V2/V3 strings.
func readPosition(o *object, card bool) (Position, error) {
	raw, path := o.find("position")
	if raw == nil {
		if card {
			return AfterChar, nil // convertCharacterBook: anything but before_char is after
		}
		return BeforeChar, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			return Position(n), nil
		}
		for i, name := range positionNames {
			if strings.EqualFold(s, name) {
				return Position(i), nil
			}
		}
		if card {
			return AfterChar, nil
		}
		return 0, fmt.Errorf("%s: %s is not a SillyTavern position (0-7) or before_char/after_char", path, describe(raw))
	}
	n, err := o.integer(0, "position")
	return Position(n), err
}

// readDelayLevel takes delayUntilRecursion as a boolean (true is level 1)
// or a level number.
func readDelayLevel(o *object) (int, error) {
	names := []string{"delayUntilRecursion", "delay_until_recursion"}
	if b, ok, err := o.optBool(names...); err == nil && ok {
		if b {
			return 1, nil
		}
		return 0, nil
	}
	n, err := o.integer(0, names...)
	return max(n, 0), err
}

// finish compiles keys and decorators, orders the entries and checks what
// needs the whole book.
func (b *Book) finish() error {
	slices.SortStableFunc(b.Entries, func(x, y Entry) int { return x.UID - y.UID })
	b.byUID = make(map[int]int, len(b.Entries))
	for i := range b.Entries {
		e := &b.Entries[i]
		if j, dup := b.byUID[e.UID]; dup {
			return fmt.Errorf("two entries have uid %d (%q and %q); give each entry its own uid", e.UID, b.Entries[j].Comment, e.Comment)
		}
		b.byUID[e.UID] = i
		e.compile(b)
	}
	b.tokens = &tokenCache{counts: make([]atomic.Int32, len(b.Entries))}
	b.order = make([]int, len(b.Entries))
	for i := range b.order {
		b.order[i] = i
	}
	// SillyTavern's sortFn: higher order first; ties keep file order.
	slices.SortStableFunc(b.order, func(x, y int) int { return b.Entries[y].Order - b.Entries[x].Order })
	return nil
}

func (e *Entry) compile(b *Book) {
	e.Content = e.parseDecorators(e.Content, b)
	warn := func(msg string) { b.warn(e.UID, msg) }
	e.primary = compileKeys(e.Keys, e.UseRegex, warn)
	e.secondary = compileKeys(e.SecondaryKeys, e.UseRegex, warn)
	for _, g := range strings.Split(e.Group, ",") {
		if g = strings.TrimSpace(g); g != "" && !slices.Contains(e.groups, g) {
			e.groups = append(e.groups, g)
		}
	}
}
