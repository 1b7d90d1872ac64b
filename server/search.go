package server

import (
	"net/http"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/retrieve"
)

// searchRequest is the body of POST /api/search (seed 000 §4.3.6).
type searchRequest struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
	// UserRole can only narrow the caller's own role.
	UserRole int `json:"user_role,omitempty"`
	// Explain adds each hit's reasons, as hearth search --explain shows
	// them: the rankings it came from and, for the passages examined but
	// not returned, why each was cut.
	Explain bool `json:"explain,omitempty"`
	Filters *struct {
		Tags      []string `json:"tags,omitempty"`
		TagsMatch string   `json:"tags_match,omitempty"`
	} `json:"filters,omitempty"`
}

// searchHit is one result.
type searchHit struct {
	assistant.Source
	ID     string   `json:"id"`
	Score  float64  `json:"score"`
	Access string   `json:"access_level"`
	Tags   []string `json:"tags,omitempty"`
	Text   string   `json:"text"`
	// Explain is set when the request asked for it.
	Explain *hitExplain `json:"explain,omitempty"`
}

// hitExplain is why a passage ranked where it did.
type hitExplain struct {
	Rank    int            `json:"rank"` // in the fused ranking of every passage examined
	Fused   float64        `json:"fused"`
	Signals []searchSignal `json:"signals"`
	// Cut is why an examined passage was not returned: budget,
	// duplicate, limit or filter; empty for a returned one.
	Cut string `json:"cut,omitempty"`
}

type searchSignal struct {
	Kind  string  `json:"kind"` // metadata, keyword, fulltext or vector
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
}

func explainOf(p retrieve.Passage, rank int) *hitExplain {
	e := &hitExplain{Rank: rank, Fused: p.Trace.Fused, Cut: string(p.Trace.Cut), Signals: make([]searchSignal, 0, len(p.Trace.Signals))}
	for _, sg := range p.Trace.Signals {
		e.Signals = append(e.Signals, searchSignal{Kind: string(sg.Kind), Rank: sg.Rank, Score: sg.Score})
	}
	return e
}

func hitOf(p retrieve.Passage) searchHit {
	c := p.Chunk
	return searchHit{Source: assistant.SourceOf(c), ID: c.ID, Score: p.Score,
		Access: c.Access.String(), Tags: c.Tags, Text: c.Text}
}

const maxQueryBytes = 2000

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	var req searchRequest
	if !api.DecodeOrError(w, r, &req, s.o.MaxBodyBytes) {
		return
	}
	if strings.TrimSpace(req.Query) == "" || len(req.Query) > maxQueryBytes {
		api.Error(w, r, api.Invalid, "search.query", map[string]any{"Max": maxQueryBytes})
		return
	}
	role := narrow(user(r).Role, req.UserRole)
	q := retrieve.Query{Text: req.Query, Role: role, Limit: req.Limit, Explain: req.Explain,
		Filter: retrieve.Filter{Corpora: []chunk.Corpus{chunk.Lore}}}
	if req.Limit <= 0 {
		q.Limit = 10
	}
	if f := req.Filters; f != nil {
		q.Filter.Tags = f.Tags
		switch f.TagsMatch {
		case "", "any":
		case "all":
			q.Filter.TagMatch = retrieve.All
		default:
			api.Error(w, r, api.Invalid, "search.tags_match", map[string]any{"Value": f.TagsMatch})
			return
		}
	}
	res, err := s.o.Index.Search(r.Context(), q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	hits := make([]searchHit, 0, len(res.Passages))
	for _, p := range res.Passages {
		hits = append(hits, hitOf(p))
	}
	out := map[string]any{"results": hits, "role": role.String()}
	if req.Explain {
		// Considered holds only chunks role may see (the index counts the
		// others in Withheld without reading them), so the cut passages
		// shown here are ones the caller could read anyway.
		rank := map[string]int{}
		cut := []searchHit{}
		for i, p := range res.Considered {
			rank[p.Chunk.ID] = i + 1
			if p.Trace.Cut != retrieve.Kept {
				h := hitOf(p)
				h.Explain = explainOf(p, i+1)
				cut = append(cut, h)
			}
		}
		for i, p := range res.Passages {
			hits[i].Explain = explainOf(p, rank[p.Chunk.ID])
		}
		out["cut"], out["examined"], out["tokens"] = cut, len(res.Considered), res.Tokens
		// How many passages the role hid is itself a hint that they
		// exist: only a caller whose own role is GM-side learns it.
		if user(r).Role >= access.Assistant {
			out["withheld"] = res.Withheld
		}
	}
	api.JSON(w, http.StatusOK, out)
}

// narrow returns the lower of the user's role and a role the client asked
// to read as (1–4); a request can see less than its key allows, never more.
func narrow(own access.Level, asked int) access.Level {
	if asked >= int(access.Player) && asked <= int(access.GM) && access.Level(asked) < own {
		return access.Level(asked)
	}
	return own
}
