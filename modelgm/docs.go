package modelgm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/structured"
)

// Documents is what document_search and document_get read: campaign text
// now, the retrieval index when there is one.
type Documents interface {
	Search(ctx context.Context, query string, limit int) ([]Hit, error)
	// Get returns one page of a document (pages count from 1).
	Get(ctx context.Context, id string, page int) (string, error)
}

// Hit is a search result.
type Hit struct {
	DocumentID string  `json:"document_id"`
	Title      string  `json:"title"`
	Page       int     `json:"page"`
	Text       string  `json:"text"`
	Score      float64 `json:"score"`
}

type searchArgs struct {
	Query string `json:"query" jsonschema:"words to look for in the campaign's documents"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many results, default 5"`
}

type getArgs struct {
	DocumentID string `json:"document_id" jsonschema:"a document_id from document_search"`
	Page       int    `json:"page,omitempty" jsonschema:"page number from document_search; default 1"`
}

func (p *Pipeline) docTool(name string, uses *[]ToolUse) agent.Tool {
	var (
		desc   string
		params json.RawMessage
		run    func(context.Context, json.RawMessage) (string, error)
	)
	if name == "document_search" {
		desc = "Searches the campaign's documents (locations, characters, lore, rules notes) and returns matching passages with their document_id and page."
		params, _ = structured.ForType(reflect.TypeFor[searchArgs]())
		run = func(ctx context.Context, raw json.RawMessage) (string, error) {
			var a searchArgs
			if err := strictDecode(raw, &a); err != nil {
				return "", err
			}
			if strings.TrimSpace(a.Query) == "" {
				return "", fmt.Errorf("query is empty; say what to look for")
			}
			hits, err := p.docs.Search(ctx, a.Query, cmpOr(a.Limit, 5))
			if err != nil {
				return "", err
			}
			if len(hits) == 0 {
				return "No passages match " + a.Query + ".", nil
			}
			var b strings.Builder
			for _, h := range hits {
				fmt.Fprintf(&b, "[%s p.%d] %s\n", h.DocumentID, h.Page, h.Text)
			}
			return strings.TrimSpace(b.String()), nil
		}
	} else {
		desc = "Returns the full text of one page of a campaign document."
		params, _ = structured.ForType(reflect.TypeFor[getArgs]())
		run = func(ctx context.Context, raw json.RawMessage) (string, error) {
			var a getArgs
			if err := strictDecode(raw, &a); err != nil {
				return "", err
			}
			return p.docs.Get(ctx, a.DocumentID, cmpOr(a.Page, 1))
		}
	}
	return agent.Tool{Tool: llm.Tool{Name: name, Description: desc, Parameters: params}, Status: "Searching the campaign's documents…",
		Run: func(ctx context.Context, raw json.RawMessage) (agent.Result, error) {
			out, err := run(ctx, raw)
			u := ToolUse{Name: name, Args: raw, Result: out, Error: err != nil}
			if err != nil {
				u.Result = err.Error()
			}
			*uses = append(*uses, u)
			if err != nil {
				return agent.Result{}, err
			}
			return agent.Result{Content: out, Summary: firstLine(out)}, nil
		}}
}

func strictDecode(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("bad arguments: %w", err)
	}
	return nil
}

func cmpOr[T comparable](a, b T) T {
	var zero T
	if a != zero {
		return a
	}
	return b
}

// CampaignDocs serves a campaign's files as documents: each file is a
// document, cut into pages of about 200 words at paragraph breaks. It
// stands in for the retrieval index until one is configured.
type CampaignDocs struct {
	pages map[string][]string // path → pages
	order []string
}

// NewCampaignDocs indexes the campaign's files.
func NewCampaignDocs(c *campaign.Campaign) *CampaignDocs {
	d := &CampaignDocs{pages: map[string][]string{}}
	for _, f := range c.Files {
		var pages []string
		var cur strings.Builder
		for _, para := range strings.Split(f.Body, "\n\n") {
			para = strings.TrimSpace(para)
			if para == "" {
				continue
			}
			if cur.Len() > 0 && len(strings.Fields(cur.String()))+len(strings.Fields(para)) > 200 {
				pages = append(pages, cur.String())
				cur.Reset()
			}
			if cur.Len() > 0 {
				cur.WriteString("\n\n")
			}
			cur.WriteString(para)
		}
		if cur.Len() > 0 {
			pages = append(pages, cur.String())
		}
		if len(pages) > 0 {
			d.pages[f.Path] = pages
			d.order = append(d.order, f.Path)
		}
	}
	slices.Sort(d.order)
	return d
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
}

// Search scores pages by the query words they contain, rarer words
// counting more.
func (d *CampaignDocs) Search(ctx context.Context, query string, limit int) ([]Hit, error) {
	q := map[string]bool{}
	for _, w := range words(query) {
		if len(w) > 2 {
			q[w] = true
		}
	}
	type page struct {
		id    string
		n     int
		words map[string]int
		text  string
	}
	var all []page
	df := map[string]int{}
	for _, id := range d.order {
		for i, text := range d.pages[id] {
			counts := map[string]int{}
			for _, w := range words(text) {
				if q[w] {
					counts[w]++
				}
			}
			for w := range counts {
				df[w]++
			}
			all = append(all, page{id, i + 1, counts, text})
		}
	}
	var hits []Hit
	for _, p := range all {
		score := 0.0
		for w, n := range p.words {
			score += (1 + math.Log(float64(n))) * math.Log(1+float64(len(all))/float64(df[w]))
		}
		if score > 0 {
			hits = append(hits, Hit{DocumentID: p.id, Title: p.id, Page: p.n, Text: excerpt(p.text, 400), Score: score})
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return hits[:min(limit, len(hits))], nil
}

// Get returns a page.
func (d *CampaignDocs) Get(ctx context.Context, id string, page int) (string, error) {
	pages, ok := d.pages[id]
	if !ok {
		return "", fmt.Errorf("no document %q; use a document_id from document_search", id)
	}
	if page < 1 || page > len(pages) {
		return "", fmt.Errorf("%s has pages 1 to %d", id, len(pages))
	}
	return pages[page-1], nil
}

func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
