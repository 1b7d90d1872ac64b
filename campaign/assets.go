package campaign

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	_ "image/gif" // DecodeConfig reads their sizes
	_ "image/jpeg"
	_ "image/png"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/pack"
	"github.com/hearth-rpg/hearth/world"
)

// Asset is an image, sound or video of a pack (seed 001 §6.2.10–6.2.13),
// with what its sidecars say: X.keywords.txt (one keyword a line, #
// comments) and X.meta.json or X.meta.yml (generated, provenance,
// alt_text, state_binding, …).
type Asset struct {
	Path     string   `json:"path"`
	Type     string   `json:"type"`   // image, audio, video; state_icon or item_icon under ui/
	Format   string   `json:"format"` // png, mp3, …
	Size     int64    `json:"size_bytes"`
	Checksum string   `json:"checksum"` // "sha256:…"
	Width    int      `json:"width,omitempty"`
	Height   int      `json:"height,omitempty"`
	Keywords []string `json:"keywords"` // the sidecar's, else words of the file name
	AltText  string   `json:"alt_text,omitempty"`

	Generated  bool        `json:"generated"`
	Provenance *Provenance `json:"provenance,omitempty"`
	// StateBinding ties a ui/state/ icon to a state path.
	StateBinding *StateBinding `json:"state_binding,omitempty"`
	// Meta is the metadata sidecar's path, if there is one.
	Meta string `json:"meta,omitempty"`

	sidecarKeywords bool // a .keywords.txt set Keywords; it wins
}

// Provenance says where AI-generated content came from (§6.2.11).
type Provenance struct {
	SourceModel string `json:"source_model"`
	GeneratedAt string `json:"generated_at"`
	SeedData    string `json:"seed_data"`
	Version     string `json:"version,omitempty"`
}

// StateBinding is a UI icon's binding to session state (§6.2.13).
type StateBinding struct {
	Path        string `json:"path"`
	DisplayMode string `json:"display_mode,omitempty"` // icon_only, icon_with_value, icon_with_label, icon_with_bar
	ValueFormat string `json:"value_format,omitempty"`
	Fallback    string `json:"fallback,omitempty"`
	Interactive *bool  `json:"interactive,omitempty"`
	Tooltip     string `json:"tooltip,omitempty"`
}

// readAsset hashes an asset as it streams it, and reads the size of the
// images the standard library knows.
func readAsset(f rawFile, errs *pack.Problems) (Asset, bool) {
	ext := strings.ToLower(path.Ext(f.rel))
	a := Asset{Path: f.rel, Type: pack.AssetType(ext), Format: strings.TrimPrefix(ext, ".")}
	switch {
	case strings.HasPrefix(f.rel, "ui/state/"):
		a.Type = "state_icon"
	case strings.HasPrefix(f.rel, "ui/items/"):
		a.Type = "item_icon"
	}
	r, err := f.open()
	if err != nil {
		errs.Add(f.rel, 0, "%v", err)
		return a, false
	}
	defer r.Close()
	h := sha256.New()
	counted := &countWriter{w: h}
	lr := bufio.NewReader(io.TeeReader(io.LimitReader(r, pack.MaxAssetSize+1), counted))
	if cfg, _, err := image.DecodeConfig(lr); err == nil {
		a.Width, a.Height = cfg.Width, cfg.Height
	}
	if _, err := io.Copy(io.Discard, lr); err != nil {
		errs.Add(f.rel, 0, "%v", err)
		return a, false
	}
	if counted.n > pack.MaxAssetSize {
		errs.Add(f.rel, 0, "asset is over %d bytes, the limit for one image, sound or video", pack.MaxAssetSize)
		return a, false
	}
	a.Size = counted.n
	a.Checksum = "sha256:" + hex.EncodeToString(h.Sum(nil))
	a.Keywords = nameKeywords(f.rel)
	return a, true
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	c.n += int64(len(b))
	return c.w.Write(b)
}

// nameKeywords are the words of a file name: npc_wizard.png → npc, wizard.
func nameKeywords(rel string) []string {
	base := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(base), func(r rune) bool {
		return r == '_' || r == '-' || r == '.' || r == ' '
	}) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// attachSidecars applies keywords and metadata files to their assets and
// reports sidecars whose asset is missing.
func (p *Pack) attachSidecars(sidecars map[string][]sidecar, errs *pack.Problems) {
	for _, asset := range world.SortedKeys(sidecars) {
		i := slices.IndexFunc(p.Assets, func(a Asset) bool { return a.Path == asset })
		for _, sc := range sidecars[asset] {
			if i < 0 {
				errs.Warn(sc.rel, 0, "sidecar of %s, which is not in the pack; add the asset or remove the sidecar", asset)
				continue
			}
			a := &p.Assets[i]
			if sc.kind == kindKeywords {
				a.Keywords, a.sidecarKeywords = parseKeywords(sc.data), true
				continue
			}
			p.assetMeta(a, sc.rel, sc.data, errs)
		}
	}
}

// parseKeywords reads a .keywords.txt: one keyword a line, # comments.
func parseKeywords(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") || slices.Contains(out, l) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// assetMeta applies a metadata sidecar.
func (p *Pack) assetMeta(a *Asset, rel string, b []byte, errs *pack.Problems) {
	fm, err := pack.ParseYAML(b)
	if err != nil {
		errs.Add(rel, 0, "%v", err)
		return
	}
	a.Meta = rel
	var raw struct {
		Keywords     []string      `json:"keywords"`
		AltText      string        `json:"alt_text"`
		Type         string        `json:"type"`
		StateBinding *StateBinding `json:"state_binding"`
	}
	if err := viaJSON(fm.Values, &raw); err != nil {
		errs.Add(rel, lineOf(fm, err), "%v", err)
		return
	}
	if len(raw.Keywords) > 0 && !a.sidecarKeywords { // a .keywords.txt exists to override (§6.2.12)
		a.Keywords = raw.Keywords
	}
	a.AltText = raw.AltText
	if raw.StateBinding != nil {
		a.StateBinding = raw.StateBinding
	}
	if p.generated(rel, fm, errs) {
		p.Generated++
		a.Generated = true
	}
	if prov, ok := fm.Values["provenance"].(map[string]any); ok {
		a.Provenance = &Provenance{SourceModel: scalarText(prov["source_model"]), GeneratedAt: scalarText(prov["generated_at"]),
			SeedData: scalarText(prov["seed_data"]), Version: scalarText(prov["version"])}
	}
}

// The messages of seed 001 §6.2.14, word for word.
const (
	msgGeneratedNoProvenance = "Generated asset missing provenance (generated=true requires provenance.source_model, provenance.generated_at, provenance.seed_data)"
	msgHumanWithProvenance   = "Human-created asset must not contain provenance (generated=false conflicts with provenance object)"
)

// generated applies the provenance rules to what a file says of itself
// (an asset's sidecar, a text file's frontmatter) and reports whether it
// is AI-generated. Problems are errors: the seed's adapter rejects them.
func (p *Pack) generated(rel string, fm pack.Frontmatter, errs *pack.Problems) bool {
	gen, hasGen := fm.Values["generated"]
	prov, hasProv := fm.Values["provenance"]
	if !hasGen && !hasProv {
		return false
	}
	isGen, ok := gen.(bool)
	if hasGen && !ok {
		errs.Add(rel, fm.Lines["generated"], "generated should be true or false, not %v", gen)
		return false
	}
	if !isGen {
		if hasProv {
			errs.Add(rel, fm.Lines["provenance"], msgHumanWithProvenance)
		}
		return false
	}
	m, _ := prov.(map[string]any)
	for _, k := range []string{"source_model", "generated_at", "seed_data"} {
		if scalarText(m[k]) == "" {
			errs.Add(rel, firstLine(fm, "provenance", "generated"), msgGeneratedNoProvenance)
			return true
		}
	}
	if !isISO8601(m["generated_at"]) {
		errs.Add(rel, fm.Lines["provenance"], "provenance.generated_at %q is not an ISO 8601 date-time; write it like 2026-02-03T11:00:00Z", scalarText(m["generated_at"]))
	}
	return true
}

func firstLine(fm pack.Frontmatter, keys ...string) int {
	return fm.Lines[pack.FirstKey(fm, keys...)]
}

// isISO8601 accepts the ISO 8601 forms authors write: a date, or a date
// and time with seconds (and fraction) and a zone or none.
func isISO8601(v any) bool {
	if _, ok := v.(time.Time); ok { // YAML reads unquoted timestamps itself
		return true
	}
	s, ok := v.(string)
	if !ok {
		return false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04:05.999999999", "2006-01-02T15:04Z07:00", "2006-01-02"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// scalarText prints a YAML scalar; "" for nothing or a collection.
func scalarText(v any) string {
	switch x := v.(type) {
	case nil, map[string]any, []any:
		return ""
	case string:
		return strings.TrimSpace(x)
	case time.Time:
		return x.Format(time.RFC3339)
	}
	return fmt.Sprint(v)
}

// checkAssets finds references to assets that are not in the pack, and
// builds the UI asset index.
func (p *Pack) checkAssets(errs *pack.Problems) {
	have := map[string]bool{}
	for _, a := range p.Assets {
		have[a.Path] = true
	}
	check := func(file string, fm pack.Frontmatter) {
		for _, k := range world.SortedKeys(fm.Values) {
			for _, ref := range assetRefs(fm.Values[k]) {
				if !have[ref] {
					errs.Warn(file, fm.Lines[k], "%s references %s, which is not in the pack; add the file or fix the path", k, ref)
				}
			}
		}
	}
	if p.Manifest.File != "" {
		check(p.Manifest.File, p.Manifest.Keys())
	}
	for _, f := range p.Files {
		check(f.Path, f.Frontmatter)
	}
	p.Index = newAssetIndex(p.Assets, errs)
}

// assetRefs finds the values that name an asset: a relative path with an
// image, sound or video extension.
func assetRefs(v any) []string {
	switch x := v.(type) {
	case string:
		s := strings.TrimPrefix(strings.TrimSpace(x), "./")
		if pack.AssetType(strings.ToLower(path.Ext(s))) != "" && strings.Contains(s, "/") &&
			!strings.ContainsAny(s, " \n") && !strings.Contains(s, "://") && !path.IsAbs(s) {
			return []string{path.Clean(s)}
		}
	case []any:
		var out []string
		for _, it := range x {
			out = append(out, assetRefs(it)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, k := range world.SortedKeys(x) {
			out = append(out, assetRefs(x[k])...)
		}
		return out
	}
	return nil
}
