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
	Filters  *struct {
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
	q := retrieve.Query{Text: req.Query, Role: role, Limit: req.Limit,
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
		c := p.Chunk
		hits = append(hits, searchHit{Source: assistant.SourceOf(c), ID: c.ID, Score: p.Score,
			Access: c.Access.String(), Tags: c.Tags, Text: c.Text})
	}
	api.JSON(w, http.StatusOK, map[string]any{"results": hits, "role": role.String()})
}

// narrow returns the lower of the user's role and a role the client asked
// to read as (1–4); a request can see less than its key allows, never more.
func narrow(own access.Level, asked int) access.Level {
	if asked >= int(access.Player) && asked <= int(access.GM) && access.Level(asked) < own {
		return access.Level(asked)
	}
	return own
}
