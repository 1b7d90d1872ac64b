package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/retrieve"
)

type searchFlags struct {
	packs, tags, types []string
	role, match        string
	corpus             string
	limit, budget      int
	explain, asJSON    bool
	embedder           string
}

func newSearch(g *globals) *cobra.Command {
	f := &searchFlags{}
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: g.t("cli.short.search", nil),
		Long: `Search the indexed packs: full text (BM25 with stemming), plus vector
similarity when the index has an embedder, fused by reciprocal rank. Results
are what --role may read (player, trusted, assistant, gm_only); nothing above
it is read at all. The packs bundled with Hearth are indexed on first use.

--explain shows every passage considered, the signals that found it and its
scores, and why each left out was cut (role, filter, budget, duplicate,
limit). --json prints one JSON object per passage.`,
		Example: `  hearth search "how does grappling work" --pack srd51
  hearth search "opportunity attack" --role player --explain
  hearth search "dragon" --tags monster,red --match all --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return search(cmd.Context(), g, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.packs, "pack", nil, "search only these packs (repeat or separate with commas)")
	fl.StringVar(&f.role, "role", "player", "read as this role: player, trusted, assistant or gm_only")
	fl.StringSliceVar(&f.tags, "tags", nil, "only passages with these tags")
	fl.StringVar(&f.match, "match", "any", "with --tags: any (at least one) or all")
	fl.StringSliceVar(&f.types, "type", nil, "only these content types (npc, location, rules, …)")
	fl.StringVar(&f.corpus, "corpus", "", "lore (authored) or history (play); default both")
	fl.IntVar(&f.limit, "limit", 5, "how many passages to show")
	fl.IntVar(&f.budget, "budget", 0, "cap the passages' total in cl100k tokens (0: no cap)")
	fl.BoolVar(&f.explain, "explain", false, "show every passage considered and why it was kept or cut")
	fl.BoolVar(&f.asJSON, "json", false, "print one JSON object per passage")
	fl.StringVar(&f.embedder, "embedder", "", `query vectors too: "hashing" (must match how the packs were indexed) or none`)
	return cmd
}

func search(ctx context.Context, g *globals, f *searchFlags, text string) error {
	role, err := access.Parse(f.role)
	if err != nil {
		return usageError{err}
	}
	q := retrieve.Query{Text: text, Role: role, Limit: f.limit, Budget: f.budget, Explain: f.explain,
		Filter: retrieve.Filter{Packs: f.packs, Tags: f.tags, ContentTypes: f.types}}
	switch f.match {
	case "any", "":
	case "all":
		q.Filter.TagMatch = retrieve.All
	default:
		return usageError{errors.New(g.t("cli.search.bad_match", map[string]any{"Value": strconv.Quote(f.match)}))}
	}
	switch f.corpus {
	case "":
	case string(chunk.Lore), string(chunk.History):
		q.Filter.Corpora = []chunk.Corpus{chunk.Corpus(f.corpus)}
	default:
		return usageError{errors.New(g.t("cli.search.bad_corpus", map[string]any{"Value": strconv.Quote(f.corpus)}))}
	}
	return g.withIndex(ctx, f.embedder, func(ix retrieve.Index) error {
		if err := g.ensureBundled(ctx, ix, f.packs); err != nil {
			return err
		}
		res, err := ix.Search(ctx, q)
		if err != nil {
			return err
		}
		switch {
		case f.asJSON:
			enc := json.NewEncoder(g.stdout)
			for _, p := range res.Passages {
				c := p.Chunk
				pj := passageJSON{ID: c.ID, Pack: c.Pack, File: c.File, Heading: c.Heading(), Page: c.Page,
					Score: p.Score, Access: c.Access.String(), Tokens: c.Tokens, Text: c.Text}
				if doc, ok := strings.CutPrefix(c.Pack, "doc:"); ok { // a book from the library
					pj.DocumentID, pj.Title = doc, c.File
				}
				if err := enc.Encode(pj); err != nil {
					return err
				}
			}
		case f.explain:
			if err := retrieve.Explain(g.stdout, res); err != nil {
				return err
			}
			fmt.Fprintln(g.stdout)
		default:
			if len(res.Passages) == 0 {
				fmt.Fprintln(g.stdout, g.t("cli.search.nothing", map[string]any{"Text": strconv.Quote(text), "Role": role.String()}))
				return nil
			}
			width := wrapWidth(g.stdout)
			for i, p := range res.Passages {
				c := p.Chunk
				src := c.Pack + ": " + c.File
				if h := c.Heading(); h != "" {
					src += " › " + h
				}
				if c.Page > 0 {
					src += fmt.Sprintf(" (page %d)", c.Page)
				}
				fmt.Fprintf(g.stdout, "%d. %s  [%.3f]\n%s\n\n", i+1, src, p.Score, indentBy(wrap(excerpt(c.Text, 600), width-3), "   "))
			}
		}
		return nil
	})
}

// passageJSON is one line of hearth search --json.
type passageJSON struct {
	ID         string  `json:"id"`
	DocumentID string  `json:"document_id,omitempty"` // for a library book: its id and title
	Title      string  `json:"title,omitempty"`
	Pack       string  `json:"pack"`
	File       string  `json:"file"`
	Heading    string  `json:"heading"`
	Page       int     `json:"page,omitempty"`
	Score      float64 `json:"score"`
	Access     string  `json:"access"`
	Tokens     int     `json:"tokens"`
	Text       string  `json:"text"`
}

// ensureBundled indexes the bundled packs a search needs (all of them when
// it names none) when they are missing from the index or out of date.
func (g *globals) ensureBundled(ctx context.Context, ix retrieve.Index, packs []string) error {
	for _, id := range bundledIDs() {
		if len(packs) > 0 && !slices.Contains(packs, id) {
			continue
		}
		p, err := g.loadPack(ctx, id)
		if err != nil {
			return g.fail("cli.search.bundled_pack_failed", map[string]any{"Pack": id}, err)
		}
		if _, err := g.index(ctx, ix, p, false); err != nil {
			return err
		}
	}
	return nil
}

func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
	}
	return s[:cut] + " …"
}

func indentBy(s, pad string) string {
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}
