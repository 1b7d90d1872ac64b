package campaign

import (
	"path"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/pack"
)

// AssetIndex resolves session-state paths to a pack's UI assets (seed
// 001 §6.2.13, "Runtime Asset Resolution"). It is built once, when the
// pack loads, from:
//
//	ui/state/player.hp.webp                 exact: player.hp
//	ui/state/world.locations.*.marker.webp  pattern: * is one segment, ** any number
//	ui/items/rusty_dagger.webp              an item's icon: …inventory.rusty_dagger
//	ui/items/weapon.webp                    the icon of items of type weapon
//
// A file under ui/state/ may also sit in folders: ui/state/player/hp.webp
// is player.hp. When two files bind the same path, WebP is preferred,
// then PNG, then SVG (the seed's order), and a warning names the other.
type AssetIndex struct {
	exact    map[string]Asset
	items    map[string]Asset
	patterns []pattern // most specific first
}

type pattern struct {
	segs  []string
	asset Asset
}

// formatRank orders the formats of one binding: lower wins.
func formatRank(format string) int {
	switch format {
	case "webp":
		return 0
	case "png":
		return 1
	case "svg":
		return 2
	}
	return 3
}

func newAssetIndex(assets []Asset, errs *pack.Problems) *AssetIndex {
	x := &AssetIndex{exact: map[string]Asset{}, items: map[string]Asset{}}
	put := func(m map[string]Asset, key string, a Asset) {
		prev, ok := m[key]
		if !ok {
			m[key] = a
			return
		}
		win, lose := prev, a
		if formatRank(a.Format) < formatRank(prev.Format) || (formatRank(a.Format) == formatRank(prev.Format) && a.Path < prev.Path) {
			win, lose = a, prev
		}
		m[key] = win
		errs.Warn(lose.Path, 0, "%s also binds %q and is used instead; remove one", win.Path, key)
	}
	pats := map[string]Asset{}
	for _, a := range assets {
		switch {
		case strings.HasPrefix(a.Path, "ui/state/"):
			key := stateKey(strings.TrimPrefix(a.Path, "ui/state/"))
			if a.StateBinding != nil && a.StateBinding.Path != "" {
				key = a.StateBinding.Path
			}
			if strings.Contains(key, "*") {
				put(pats, key, a)
			} else {
				put(x.exact, key, a)
			}
		case strings.HasPrefix(a.Path, "ui/items/"):
			put(x.items, stateKey(strings.TrimPrefix(a.Path, "ui/items/")), a)
		}
	}
	for key, a := range pats {
		x.patterns = append(x.patterns, pattern{segs: strings.Split(key, "."), asset: a})
	}
	slices.SortFunc(x.patterns, func(a, b pattern) int {
		if d := specificity(b) - specificity(a); d != 0 {
			return d
		}
		return strings.Compare(strings.Join(a.segs, "."), strings.Join(b.segs, "."))
	})
	return x
}

// stateKey turns a file's path below ui/state/ into its state path.
func stateKey(rel string) string {
	return strings.ReplaceAll(strings.TrimSuffix(rel, path.Ext(rel)), "/", ".")
}

// specificity ranks patterns: more literal segments first, then fewer
// ** (which match any number of segments), then more segments.
func specificity(p pattern) int {
	lit, deep := 0, 0
	for _, s := range p.segs {
		switch s {
		case "*":
		case "**":
			deep++
		default:
			lit++
		}
	}
	return lit*10000 - deep*100 + len(p.segs)
}

// Len is the number of indexed assets.
func (x *AssetIndex) Len() int {
	if x == nil {
		return 0
	}
	return len(x.exact) + len(x.items) + len(x.patterns)
}

// Resolve finds the asset for a state path, trying in order: an exact
// ui/state/ binding (or, for a path into an inventory, the item's own
// ui/items/ icon); the most specific matching pattern; the icon of
// itemType, the type of the value at the path (when it has one); and
// the binding of the longest enclosing path (world.locations for
// world.locations.cave.marker), the category fallback.
func (x *AssetIndex) Resolve(statePath, itemType string) (Asset, bool) {
	if x == nil || statePath == "" {
		return Asset{}, false
	}
	if a, ok := x.exact[statePath]; ok {
		return a, true
	}
	segs := strings.Split(statePath, ".")
	for i := len(segs) - 2; i >= 0; i-- {
		if segs[i] == "inventory" || segs[i] == "items" {
			if a, ok := x.items[segs[i+1]]; ok {
				return a, true
			}
			break
		}
	}
	for _, p := range x.patterns {
		if match(p.segs, segs) {
			return p.asset, true
		}
	}
	if itemType != "" {
		if a, ok := x.items[itemType]; ok {
			return a, true
		}
	}
	for n := len(segs) - 1; n > 0; n-- {
		if a, ok := x.exact[strings.Join(segs[:n], ".")]; ok {
			return a, true
		}
	}
	return Asset{}, false
}

// match reports whether a pattern's segments match a path's: * is one
// segment, ** any number (none too). Dynamic programming keeps it linear
// in their product however many ** a hostile file name holds.
func match(pat, segs []string) bool {
	// ok[j]: pat[i:] matches segs[j:], for the current i, computed from the end.
	ok := make([]bool, len(segs)+1)
	ok[len(segs)] = true
	for i := len(pat) - 1; i >= 0; i-- {
		next := make([]bool, len(segs)+1)
		for j := len(segs); j >= 0; j-- {
			switch pat[i] {
			case "**":
				next[j] = ok[j] || (j < len(segs) && next[j+1])
			case "*":
				next[j] = j < len(segs) && ok[j+1]
			default:
				next[j] = j < len(segs) && segs[j] == pat[i] && ok[j+1]
			}
		}
		ok = next
	}
	return ok[0]
}
