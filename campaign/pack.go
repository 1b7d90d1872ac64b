package campaign

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/lorebook"
	"github.com/hearth-rpg/hearth/pack"
	"github.com/hearth-rpg/hearth/world"
)

// Pack is a content pack or a campaign, loaded: its manifest, every text
// and structured file, the entities parsed from them, plot beats and
// assets. A campaign is a pack whose manifest is its campaign.yml.
type Pack struct {
	Manifest pack.Manifest
	// Source is the directory or archive the pack was read from.
	Source string
	// Content holds the pack's entities as world types, parsed exactly as
	// a campaign's are. For a campaign it is the Campaign Load returns.
	Content *Campaign
	// Files are the text and structured files, sorted by path; manifests,
	// assets and sidecars are not among them.
	Files  []File
	Beats  []Beat
	Assets []Asset
	// Lorebooks are the keyword lorebooks in lorebooks/*.json (SillyTavern
	// World Info or Character Card V2/V3), named "pack:file".
	Lorebooks []Lorebook
	// Index resolves state paths to the pack's UI assets.
	Index *AssetIndex
	// Problems are the warnings the pack loaded with (LoadPack fails on
	// errors; Validate reports both).
	Problems []pack.Problem
	// Generated counts AI-generated assets and files.
	Generated int

	files int // every file read
}

// IsCampaign reports whether the pack is a playable campaign.
func (p *Pack) IsCampaign() bool { return p.Manifest.Campaign }

// NamespacedID returns "pack:id", the form other packs and scenarios use.
func (p *Pack) NamespacedID(id string) string {
	if pk, _ := splitID(id); pk != "" {
		return id
	}
	return p.Manifest.ID + ":" + id
}

// LoadPack reads a pack or campaign from a directory or an archive
// (.tar.gz, .tgz and .campaign.gz are gzip tar; .zip). Archives are read
// in memory and never extracted. It fails on any error in the pack, each
// naming file and line; warnings are left in Pack.Problems.
func LoadPack(ctx context.Context, path string) (*Pack, error) {
	p, err := readPack(ctx, path)
	if err != nil {
		return nil, err
	}
	return p.check(path)
}

// LoadPackFS reads the pack in directory dir of fsys.
func LoadPackFS(ctx context.Context, fsys fs.FS, dir string) (*Pack, error) {
	files, err := walkFS(ctx, fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", dir, err)
	}
	p, err := build(ctx, dir, files, nil)
	if err != nil {
		return nil, err
	}
	return p.check(dir)
}

// check fails when the pack has errors.
func (p *Pack) check(name string) (*Pack, error) {
	if errs := pack.Problems(p.Problems).Errors(); len(errs) > 0 {
		return nil, fmt.Errorf("pack %s: %w", name, errors.Join(errs...))
	}
	return p, nil
}

// readPack reads a pack with all its problems; the error is for a pack
// that cannot be read at all (missing, an unreadable or hostile archive).
func readPack(ctx context.Context, path string) (*Pack, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", path, err)
	}
	if fi.IsDir() {
		files, errs, err := walkDir(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("pack %s: %w", path, err)
		}
		return build(ctx, path, files, errs)
	}
	fsys, err := pack.OpenArchive(ctx, path)
	if err != nil {
		return nil, err
	}
	root := pack.ArchiveRoot(fsys)
	files, err := walkFS(ctx, fsys, root)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", path, err)
	}
	return build(ctx, path, files, nil)
}

// rawFile is a file of a pack not yet read.
type rawFile struct {
	rel  string // slash-separated, relative to the pack
	open func() (io.ReadCloser, error)
}

// read reads at most one byte past limit, so an oversized file is found
// without reading it all.
func (f rawFile) read(limit int64) ([]byte, error) {
	r, err := f.open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, limit+1))
}

// walkDir lists a directory's files. Hidden files are skipped; a symbolic
// link that points outside the directory is a problem, one inside is
// skipped (its target is read under its own name).
func walkDir(ctx context.Context, dir string) ([]rawFile, pack.Problems, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, nil, fmt.Errorf("not a directory")
	}
	var errs pack.Problems
	var files []rawFile
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(p)
			if err != nil || !within(root, target) {
				errs.Add(rel, 0, "symbolic link points outside the campaign; campaign files must stay inside %s", dir)
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if len(files) >= pack.MaxFiles {
			return fmt.Errorf("more than %d files; is %s really a campaign?", pack.MaxFiles, dir)
		}
		files = append(files, rawFile{rel: rel, open: func() (io.ReadCloser, error) { return os.Open(p) }})
		return nil
	})
	return files, errs, err
}

// walkFS lists the files under dir of fsys.
func walkFS(ctx context.Context, fsys fs.FS, dir string) ([]rawFile, error) {
	var files []rawFile
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if len(files) >= pack.MaxFiles {
			return fmt.Errorf("more than %d files; is %s really a campaign?", pack.MaxFiles, dir)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
		if dir == "." {
			rel = p
		}
		files = append(files, rawFile{rel: rel, open: func() (io.ReadCloser, error) { return fsys.Open(p) }})
		return nil
	})
	return files, err
}

// fileKind is what the loader makes of a file.
type fileKind int

const (
	kindUnknown fileKind = iota
	kindSkipped          // README, LICENSE: about the pack, not in it
	kindManifest
	kindConstraints
	kindStat
	kindItemFile
	kindBeat      // plot_beat_*: one beat
	kindBeatList  // beats.yml, plot/*.json: a list of beats
	kindText      // Markdown or text, with optional frontmatter
	kindStructure // another YAML or JSON file: an entity if it says entity_type
	kindAsset
	kindKeywords // X.keywords.txt
	kindMeta     // X.meta.json / .yml: an asset's metadata
)

func structuredExt(ext string) bool { return ext == ".json" || ext == ".yml" || ext == ".yaml" }

func textExt(ext string) bool { return ext == ".md" || ext == ".txt" || ext == ".markdown" }

// classify tells a file's kind from its path alone.
func classify(rel string) fileKind {
	base := path.Base(rel)
	lower := strings.ToLower(base)
	ext := strings.ToLower(path.Ext(rel))
	top := strings.ToLower(strings.SplitN(rel, "/", 2)[0])
	if !strings.Contains(rel, "/") {
		top = ""
	}
	switch {
	case pack.IsManifest(rel):
		return kindManifest
	case rel == "player_character_constraints.yml" || rel == "player_character_constraints.yaml":
		return kindConstraints
	case strings.HasSuffix(lower, ".keywords.txt") && sidecarOf(rel) != "":
		return kindKeywords
	case sidecarOf(rel) != "" && structuredExt(ext):
		return kindMeta
	case pack.AssetType(ext) != "":
		return kindAsset
	case top == "stats" && structuredExt(ext), strings.HasPrefix(lower, "stat_") && structuredExt(ext):
		return kindStat
	case top == "items" && structuredExt(ext), strings.HasPrefix(lower, "item_") && structuredExt(ext):
		return kindItemFile
	case strings.HasPrefix(lower, "plot_beat_") && (structuredExt(ext) || textExt(ext)):
		return kindBeat
	case structuredExt(ext) && (top == "plot" || top == "beats" || strings.TrimSuffix(lower, ext) == "beats" || strings.TrimSuffix(lower, ext) == "plot_beats"):
		return kindBeatList
	case textExt(ext):
		upper := strings.ToUpper(base)
		for _, p := range []string{"README", "LICENSE", "LICENCE", "ATTRIBUTION", "CHANGELOG", "NOTICE"} {
			if strings.HasPrefix(upper, p) {
				return kindSkipped
			}
		}
		return kindText
	case structuredExt(ext):
		return kindStructure
	}
	return kindUnknown
}

// build reads and interprets a pack's files.
func build(ctx context.Context, name string, files []rawFile, errs pack.Problems) (*Pack, error) {
	c := &Campaign{Dir: name,
		Locations: map[string]*world.Location{}, Characters: map[string]*world.Character{},
		Items: map[string]*world.Item{}, Quests: map[string]*world.Quest{}, Factions: map[string]*world.Faction{},
		Stats: map[string]*world.StatDef{}, origin: map[string]string{}, src: map[string]source{}}
	p := &Pack{Source: name, Content: c, files: len(files)}
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })

	// Manifests first: the rest is read knowing the pack's id and kind.
	var manifests []pack.Manifest
	for _, n := range pack.ManifestNames() {
		i := slices.IndexFunc(files, func(f rawFile) bool { return f.rel == n })
		if i < 0 {
			continue
		}
		b, ok := readFile(files[i], pack.MaxFileSize, &errs)
		if !ok {
			continue
		}
		m := pack.ReadManifest(n, b, &errs)
		if m.Campaign {
			if len(manifests) > 0 && manifests[0].Campaign {
				errs.Add(n, 0, "a campaign has one of campaign.yml and scenario.yml; %s is here too", manifests[0].File)
				continue
			}
			c.loadMeta(n, b, &errs)
		}
		manifests = append(manifests, m)
	}
	if len(manifests) == 0 {
		errs.Add("pack.yml", 0, "missing: a pack needs a pack.yml (id, name, version, license) or, for a campaign, a campaign.yml (title, version)")
	} else {
		p.Manifest = manifests[0]
		for _, m := range manifests[1:] {
			p.Manifest.Merge(m, &errs)
		}
	}
	c.pack = packContext{self: p.Manifest.ID, campaign: p.Manifest.Campaign}
	for _, r := range p.Manifest.Requires {
		c.pack.requires = append(c.pack.requires, r.ID)
	}

	sidecars := map[string][]sidecar{} // asset path → its sidecars
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rel := f.rel
		kind := classify(rel)
		if kind == kindBeat && textExt(strings.ToLower(path.Ext(rel))) {
			kind = kindText // frontmatter and prose, like any entity
		}
		switch kind {
		case kindManifest, kindSkipped:
			continue
		case kindUnknown:
			errs.Warn(rel, 0, "files of type %q are not read; content is .md or .txt (with frontmatter), .yml or .json, images (%s) or sound (%s)",
				path.Ext(rel), strings.Join(pack.AssetExtensions("image"), ", "), strings.Join(pack.AssetExtensions("audio"), ", "))
			continue
		case kindAsset:
			if a, ok := readAsset(f, &errs); ok {
				p.Assets = append(p.Assets, a)
			}
			continue
		}
		b, ok := readFile(f, pack.MaxFileSize, &errs)
		if !ok {
			continue
		}
		switch kind {
		case kindKeywords, kindMeta:
			sidecars[sidecarOf(rel)] = append(sidecars[sidecarOf(rel)], sidecar{rel: rel, kind: kind, data: b})
		case kindText:
			if fl, ok := c.loadFile(rel, b, &errs); ok {
				if fl.EntityType == "plot_beat" {
					p.addBeat(rel, fl.Frontmatter, fl.Body, &errs)
				}
				p.addFile(fl, b, &errs)
			}
		default:
			p.loadStructured(rel, kind, b, &errs)
		}
	}
	p.attachSidecars(sidecars, &errs)
	p.checkAssets(&errs)
	p.checkBeats(&errs)
	c.validate(&errs)
	if p.Generated > 0 {
		errs.Warn(cmp.Or(p.Manifest.File, "pack.yml"), 0, "Campaign contains %d AI-generated asset(s). Review generated flags and provenance metadata to verify correctness.", p.Generated)
	}
	for _, x := range errs {
		if x.Severity == pack.Warning {
			c.Warnings = append(c.Warnings, x.Error())
		}
	}
	p.Problems = errs
	return p, nil
}

// readFile reads a file no bigger than limit.
func readFile(f rawFile, limit int64, errs *pack.Problems) ([]byte, bool) {
	b, err := f.read(limit)
	if err != nil {
		errs.Add(f.rel, 0, "%v", err)
		return nil, false
	}
	if int64(len(b)) > limit {
		errs.Add(f.rel, 0, "file is over %d bytes, the limit", limit)
		return nil, false
	}
	return b, true
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// addFile records a text or structured file of the pack.
func (p *Pack) addFile(f File, b []byte, errs *pack.Problems) {
	f.Hash = hashOf(b)
	if f.ContentType == "" {
		f.ContentType = inferContentType(f)
	}
	if p.generated(f.Path, f.Frontmatter, errs) {
		p.Generated++
	}
	p.Files = append(p.Files, f)
}

// loadStructured reads a YAML or JSON file: a stat, an item, a list of
// plot beats, the player constraints, or an entity that says its type.
func (p *Pack) loadStructured(rel string, kind fileKind, b []byte, errs *pack.Problems) {
	c := p.Content
	if strings.HasPrefix(rel, "lorebooks/") && strings.HasSuffix(rel, ".json") {
		p.addLorebook(rel, b, errs)
		return
	}
	fm, err := pack.ParseYAML(b) // JSON is YAML
	if err != nil {
		errs.Add(rel, 0, "%v", err)
		return
	}
	f := File{Path: rel, Frontmatter: fm, Structured: true, BodyLine: 0}
	f.EntityType, f.EntityID = infer(rel)
	if v := str(fm.Values["entity_type"]); v != "" {
		f.EntityType = v
	}
	switch {
	case kind == kindConstraints:
		f.EntityType = "player_character_constraints"
		c.loadConstraints(rel, fm, errs)
	case kind == kindStat || f.EntityType == "stat":
		f.EntityType = "stat"
		f.EntityID = c.loadStat(rel, fm, errs)
	case kind == kindItemFile || f.EntityType == "item":
		f.EntityType = "item"
		f.EntityID = c.loadItem(rel, fm, errs)
	case kind == kindBeatList:
		p.addBeatList(rel, fm, b, errs)
		f.EntityType = "" // many beats: the file is no one entity
		f.ContentType = "plot_beat"
	case kind == kindBeat || f.EntityType == "plot_beat":
		f.EntityType = "plot_beat"
		f.EntityID = p.addBeat(rel, fm, "", errs)
	case fm.Values["entity_type"] != nil:
		// An entity written as YAML: frontmatter without a body.
		fl, ok := c.loadEntity(rel, fm, nil, 0, errs)
		if !ok {
			return
		}
		fl.Structured = true
		f = fl
	default:
		errs.Warn(rel, 0, "not read: a YAML or JSON file is a stat (stats/), an item (items/), a plot beat (plot_beat_*) or says its entity_type")
		return
	}
	if f.EntityID == "" && f.EntityType != "" {
		f.EntityID = strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	}
	p.addFile(f, b, errs)
}

// Lorebook is a keyword lorebook of the pack, read at the pack's access
// level.
type Lorebook struct {
	Path   string
	Book   *lorebook.Book
	Access access.Level
}

func (p *Pack) addLorebook(rel string, b []byte, errs *pack.Problems) {
	book, err := lorebook.Parse(b)
	if err != nil {
		errs.Add(rel, 0, "%v", err)
		return
	}
	book.Name = p.Manifest.ID + ":" + strings.TrimSuffix(path.Base(rel), ".json")
	for _, w := range book.Warnings {
		errs.Warn(rel, 0, "%s", w)
	}
	p.Lorebooks = append(p.Lorebooks, Lorebook{Path: rel, Book: book, Access: p.Manifest.Access})
}

// sidecar is a .keywords.txt or .meta.* file beside an asset.
type sidecar struct {
	rel  string
	kind fileKind
	data []byte
}

// sidecarOf returns the asset path a sidecar belongs to, or "".
func sidecarOf(rel string) string {
	lower := strings.ToLower(rel)
	for _, suf := range []string{".keywords.txt", ".meta.json", ".meta.yml", ".meta.yaml"} {
		if strings.HasSuffix(lower, suf) {
			asset := rel[:len(rel)-len(suf)]
			if pack.AssetType(strings.ToLower(path.Ext(asset))) != "" {
				return asset
			}
		}
	}
	return ""
}
