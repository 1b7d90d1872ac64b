package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/tokens"
)

func newPack(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pack",
		Short: g.t("cli.short.pack", nil),
		Long: `Content packs are the author's own material — sourcebooks, settings, campaigns —
as a directory of Markdown and YAML files with a manifest (pack.yml, or a
campaign.yml for a playable campaign), or the same as a .tar.gz, .zip or
.campaign.gz archive.

A PACK argument is a directory, an archive, or the id of a pack bundled with
Hearth (` + strings.Join(bundledIDs(), ", ") + `).`,
	}
	cmd.AddCommand(newPackValidate(g), newPackInfo(g), newPackIndex(g))
	return cmd
}

func newPackValidate(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate PACK",
		Short: g.t("cli.short.pack.validate", nil),
		Long: `Check a pack: manifest, frontmatter and structured files against their schemas,
duplicate entity ids, broken plot-beat prerequisites, orphaned asset
references, and the provenance rules for AI-generated content. A campaign that
uses entities of the packs it plays with is bound to them as a game would be:
each pack is found in the directory (or archive) of its id beside the campaign,
else among the built-in packs, and every reference must resolve. Every problem
names its file and line. Exits with status 1 when there are errors.`,
		Example: `  hearth pack validate campaigns/saltmere
  hearth pack validate my-setting.tar.gz --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, cleanup, err := g.packPath(args[0])
			if err != nil {
				return err
			}
			defer cleanup()
			rep, err := campaign.ValidateWithPacks(cmd.Context(), path, app.FindPack)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				text := rep.Text()
				if !strings.HasSuffix(text, "\n") {
					text += "\n"
				}
				fmt.Fprint(g.stdout, text)
			}
			if !rep.OK() {
				return errors.New(g.t("cli.pack.invalid", map[string]any{"Pack": args[0], "Errors": rep.Summary.Errors}))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func newPackInfo(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "info PACK",
		Short: g.t("cli.short.pack.info", nil),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			p, err := g.loadPack(ctx, args[0])
			if err != nil {
				return err
			}
			m := p.Manifest
			fmt.Fprintf(g.stdout, "%s (%s) version %s\n", m.Name, m.ID, m.Version)
			if m.Description != "" {
				fmt.Fprintf(g.stdout, "%s\n", wrap(strings.Join(strings.Fields(m.Description), " "), 78))
			}
			row := func(k, v string) {
				if v != "" {
					fmt.Fprintf(g.stdout, "  %-12s %s\n", k+":", v)
				}
			}
			row("layer", string(m.Layer))
			row("system", m.System)
			row("author", m.Author)
			row("license", m.License)
			row("access", m.Access.String())
			row("tags", strings.Join(m.Tags, ", "))
			row("source", p.Source)
			kinds := map[string]int{}
			for _, f := range p.Files {
				kinds[cmpOr(f.EntityType, "other")]++
			}
			var parts []string
			for _, k := range sortedKeys(kinds) {
				parts = append(parts, fmt.Sprintf("%d %s", kinds[k], k))
			}
			row("files", fmt.Sprintf("%d (%s)", len(p.Files), strings.Join(parts, ", ")))
			row("plot beats", fmt.Sprint(len(p.Beats)))
			row("assets", fmt.Sprint(len(p.Assets)))
			row("lorebooks", fmt.Sprint(len(p.Lorebooks)))
			if m.Attribution != "" {
				fmt.Fprintf(g.stdout, "\n%s\n%s\n", g.t("cli.pack.attribution", nil), wrap(strings.Join(strings.Fields(m.Attribution), " "), 78))
			}
			return g.withIndex(ctx, "", func(ix retrieve.Index) error {
				have, err := ix.Hashes(ctx, m.ID)
				if err != nil {
					return err
				}
				stale := 0
				for _, f := range p.Files {
					if have[f.Path] != f.Hash {
						stale++
					}
				}
				switch {
				case len(have) == 0:
					fmt.Fprintf(g.stdout, "\n%s\n", g.t("cli.pack.not_indexed", map[string]any{"Pack": args[0]}))
				case stale > 0:
					fmt.Fprintf(g.stdout, "\n%s\n", g.t("cli.pack.stale", map[string]any{"Stale": stale, "Pack": args[0]}))
				default:
					fmt.Fprintf(g.stdout, "\n%s\n", g.t("cli.pack.up_to_date", map[string]any{"Files": len(have)}))
				}
				return nil
			})
		},
	}
}

func newPackIndex(g *globals) *cobra.Command {
	var embedder string
	cmd := &cobra.Command{
		Use:   "index [PACK...]",
		Short: g.t("cli.short.pack.index", nil),
		Long: `Index packs into the data directory so that 'hearth search' and the game
master can find their lore: frontmatter, prose by section and paragraph, and
structured fields become chunks of at most 512 tokens, searched by full text
(BM25) and, with --embedder, by vector similarity. Indexing is incremental:
a file whose content has not changed is not read again. Without arguments,
the packs bundled with Hearth are indexed.`,
		Example: `  hearth pack index                      # the bundled packs
  hearth pack index ./my-setting --embedder hashing`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if len(args) == 0 {
				args = bundledIDs()
			}
			return g.withIndex(ctx, embedder, func(ix retrieve.Index) error {
				for _, a := range args {
					p, err := g.loadPack(ctx, a)
					if err != nil {
						return err
					}
					if _, err := g.index(ctx, ix, p, true); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&embedder, "embedder", "", `also index vectors: "hashing" (offline, lexical) or none`)
	return cmd
}

// index brings p's chunks in ix up to date, showing progress on stderr.
func (g *globals) index(ctx context.Context, ix retrieve.Index, p *campaign.Pack, always bool) (lore.IndexReport, error) {
	tok, err := tokens.CL100K()
	if err != nil {
		return lore.IndexReport{}, err
	}
	start := time.Now()
	var progress lore.Progress
	if wrapWidth(g.stderr) > 0 { // a terminal: a live counter, erased when done
		last := time.Time{}
		progress = func(done, total int, file string) {
			if now := time.Now(); done == total || now.Sub(last) > 100*time.Millisecond {
				last = now
				fmt.Fprintf(g.stderr, "\r%s\033[K", g.t("cli.pack.indexing", map[string]any{"Pack": p.Manifest.ID, "Done": done, "Total": total, "File": file}))
			}
		}
		defer fmt.Fprint(g.stderr, "\r\033[K")
	}
	rep, err := lore.IndexPack(ctx, ix, p, tok, progress)
	if progress != nil {
		fmt.Fprint(g.stderr, "\r\033[K")
	}
	if err != nil {
		return rep, err
	}
	if always || rep.Indexed > 0 || rep.Removed > 0 {
		fmt.Fprintln(g.stderr, g.t("cli.pack.indexed", map[string]any{"Pack": rep.Pack, "Files": rep.Files, "Changed": rep.Indexed,
			"Unchanged": rep.Unchanged, "Removed": rep.Removed, "Chunks": rep.Chunks, "Took": time.Since(start).Round(time.Millisecond).String()}))
	}
	return rep, nil
}

// withIndex opens the lore index in the data directory's database.
func (g *globals) withIndex(ctx context.Context, embedder string, fn func(retrieve.Index) error) error {
	var opts []database.Option
	switch embedder {
	case "", "none":
	case "hashing":
		opts = append(opts, database.WithIndexEmbedder(embedding.NewHashing(384)))
	default:
		return usageError{errors.New(g.t("cli.pack.bad_embedder", map[string]any{"Value": strconv.Quote(embedder)}))}
	}
	return g.withDatabase(ctx, func(db *database.DB) error { return fn(db.Index) }, opts...)
}

// bundledIDs lists the packs built into Hearth.
func bundledIDs() []string { return app.BundledPacks() }

// loadPack loads a pack from a path or, failing that, a bundled pack by id.
func (g *globals) loadPack(ctx context.Context, arg string) (*campaign.Pack, error) {
	p, err := app.LoadPack(ctx, arg)
	if errors.Is(err, app.ErrNoPack) {
		return nil, g.noPack(arg)
	}
	return p, err
}

// packPath is a path Validate can read: the argument itself, or a bundled
// pack copied out to a temporary directory.
func (g *globals) packPath(arg string) (string, func(), error) {
	if _, err := os.Stat(arg); err == nil {
		return arg, func() {}, nil
	}
	for _, root := range []struct {
		fsys fs.FS
		dir  string
	}{{hearth.Packs, "packs/" + arg}, {hearth.Campaigns, "campaigns/" + arg}} {
		sub, err := fs.Sub(root.fsys, root.dir)
		if err != nil {
			continue
		}
		if _, err := fs.Stat(sub, "."); err != nil || !app.ValidName(arg) {
			continue
		}
		tmp, err := os.MkdirTemp("", "hearth-pack-")
		if err != nil {
			return "", nil, err
		}
		cleanup := func() { os.RemoveAll(tmp) }
		if err := os.CopyFS(filepath.Join(tmp, arg), sub); err != nil {
			cleanup()
			return "", nil, err
		}
		return filepath.Join(tmp, arg), cleanup, nil
	}
	return "", nil, g.noPack(arg)
}

func (g *globals) noPack(arg string) error {
	return errors.New(g.t("cli.pack.no_pack", map[string]any{"Pack": strconv.Quote(arg), "Bundled": strings.Join(bundledIDs(), ", ")}))
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
