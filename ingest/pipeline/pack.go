package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/systems"
)

// packFile is one file of a pack to write.
type packFile struct {
	path string // slash-separated, inside the pack
	data []byte
}

// manifest is the pack.yml written for an ingested book.
type manifest struct {
	ID      string   `yaml:"id"`
	Name    string   `yaml:"name"`
	Version string   `yaml:"version"`
	Layer   string   `yaml:"layer"`
	License string   `yaml:"license"`
	Access  string   `yaml:"access"`
	Tags    []string `yaml:"tags,omitempty"`
}

// frontmatter heads each section file.
type frontmatter struct {
	Title          string   `yaml:"title"`
	Page           int      `yaml:"page"`
	Tags           []string `yaml:"tags,omitempty"`
	Classification string   `yaml:"classification"`
	ContentType    string   `yaml:"content_type,omitempty"`
}

// packID makes a pack id from a title: lower-case letters, digits and -.
func packID(title string) string {
	id := slug(title)
	if id == "" {
		id = "book"
	}
	return strings.Trim(id[:min(len(id), 64)], "-")
}

// packOf lays out a pack: the manifest, one Markdown file per section,
// one per creature (creatures/) and one YAML file per item (items/).
func packOf(d library.Document, license string, segs []Segment, classes []Class, enr []enriched, mech mechanics) []packFile {
	m := manifest{ID: packID(d.Title), Name: d.Title, Version: "1.0.0", Layer: "base", License: license, Access: d.Access.String(), Tags: d.Tags}
	b, _ := yaml.Marshal(m)
	files := []packFile{{"pack.yml", b}}
	width := len(fmt.Sprint(len(segs)))
	for i, s := range segs {
		fm, _ := yaml.Marshal(frontmatter{Title: s.Title, Page: s.Page, Tags: enr[i].Tags, Classification: classes[i].Label, ContentType: classes[i].Type})
		name := slug(s.Title)
		if name == "" {
			name = "section"
		}
		path := fmt.Sprintf("sections/%0*d-%s.md", width, i+1, name)
		files = append(files, packFile{path, []byte("---\n" + string(fm) + "---\n\n" + s.Text + "\n")})
	}
	return append(files, mechanicsFiles(d.Title, mech)...)
}

// mechanicsFiles writes the monsters as creatures/<id>.md (the rules'
// fields as frontmatter, the stat block as the body) and the items as
// items/<id>.yml. Ids are the names' slugs, numbered when two collide.
func mechanicsFiles(source string, mech mechanics) []packFile {
	var files []packFile
	used := map[string]int{}
	id := func(kind, name string) string {
		base := slug(name)
		if base == "" {
			base = kind
		}
		used[kind+"/"+base]++
		if n := used[kind+"/"+base]; n > 1 {
			return fmt.Sprintf("%s-%d", base, n)
		}
		return base
	}
	for _, m := range mech.Monsters {
		fm := fields(Creature(m))
		fm["entity_type"] = "creature"
		fm["content_type"] = systems.StatBlock
		if m.Page > 0 {
			fm["source"] = fmt.Sprintf("%s, page %d", source, m.Page)
		}
		b, _ := yaml.Marshal(fm)
		files = append(files, packFile{"creatures/" + id("creature", m.Name) + ".md", []byte("---\n" + string(b) + "---\n\n" + Described(m))})
	}
	for _, it := range mech.Items {
		fm := fields(PackItem(it))
		if it.Page > 0 {
			fm["source"] = fmt.Sprintf("%s, page %d", source, it.Page)
		}
		b, _ := yaml.Marshal(fm)
		files = append(files, packFile{"items/" + id("item", it.Name) + ".yml", b})
	}
	return files
}

// fields turns a world entity into frontmatter keys by its JSON names,
// without the id (the file name gives it) or the kind (the folder does).
func fields(v any) map[string]any {
	b, _ := json.Marshal(v)
	var m map[string]any
	json.Unmarshal(b, &m)
	delete(m, "id")
	delete(m, "kind")
	for k, v := range m {
		if f, ok := v.(float64); ok && f == 0 {
			delete(m, k) // hit_points of a block without them, …
		}
	}
	return m
}

// writePack writes files to a new directory beside dir and renames it
// into place, so dir holds a whole pack or the one it held before. An
// existing dir is replaced only if it is empty or a pack with the same id.
func writePack(dir string, files []packFile) error {
	dir = filepath.Clean(dir)
	if err := replaceable(dir, files[0].data); err != nil {
		return err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".pack-*")
	if err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, f := range files {
		p := filepath.Join(tmp, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("write pack: %w", err)
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return fmt.Errorf("write pack: %w", err)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("write pack: replace %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	return nil
}

// replaceable refuses to overwrite a directory that is not a previous
// output of the same book.
func replaceable(dir string, manifestYAML []byte) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(ents) == 0) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write pack to %s: %w", dir, err)
	}
	var want, have manifest
	yaml.Unmarshal(manifestYAML, &want)
	b, err := os.ReadFile(filepath.Join(dir, "pack.yml"))
	if err == nil && yaml.Unmarshal(b, &have) == nil && have.ID == want.ID {
		return nil
	}
	return fmt.Errorf("write pack: %s is not empty and is not a pack of %q; choose an empty or new directory for --pack", dir, want.ID)
}
