package gameapi

import (
	"context"
	"io/fs"
	"net/http"
	"slices"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/internal/api"
)

// CampaignInfo is one campaign a game can be created from, as GET
// /api/campaigns lists it. A campaign that does not load is listed with
// its Problem, so its author sees why it cannot be played.
type CampaignInfo struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Problem     string `json:"problem,omitempty"`
}

// bundledCampaigns names the campaigns built into the binary.
func bundledCampaigns(context.Context) ([]string, error) {
	ents, err := fs.ReadDir(hearth.Campaigns, "campaigns")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() && campaignName.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// listCampaigns serves GET /api/campaigns: creating a game takes an
// assistant or the GM, and so does seeing what it could be created from.
func (s *Server) listCampaigns(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.user(w, r, access.Assistant); !ok {
		return
	}
	names, err := s.o.Campaigns(r.Context())
	if err != nil {
		s.fail(w, r, "", err)
		return
	}
	slices.Sort(names)
	names = slices.Compact(names)
	out := make([]CampaignInfo, 0, len(names))
	for _, n := range names {
		in := CampaignInfo{Name: n}
		c, err := s.o.Campaign(r.Context(), n)
		if err != nil {
			if r.Context().Err() != nil {
				s.fail(w, r, "", r.Context().Err())
				return
			}
			in.Problem = err.Error()
		} else {
			in.Title, in.Description = c.Meta.Title, c.Meta.Description
		}
		out = append(out, in)
	}
	api.JSON(w, http.StatusOK, map[string]any{"campaigns": out})
}
