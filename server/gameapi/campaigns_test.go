package gameapi_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/server/gameapi"
)

func TestListCampaigns(t *testing.T) {
	t.Run("bundled by default", func(t *testing.T) {
		h := newHarness(t)
		var got struct{ Campaigns []gameapi.CampaignInfo }
		h.ok(http.StatusOK, "GET", "/api/campaigns", gm, nil, &got)
		if len(got.Campaigns) == 0 || got.Campaigns[0].Name != "saltmere" || got.Campaigns[0].Title == "" || got.Campaigns[0].Problem != "" {
			t.Errorf("campaigns: %+v", got.Campaigns)
		}
	})
	t.Run("listed, sorted, once each, broken ones with their problem", func(t *testing.T) {
		h := newHarness(t, func(o *gameapi.Options) {
			o.Campaigns = func(context.Context) ([]string, error) { return []string{"saltmere", "broken", "saltmere"}, nil }
			o.Campaign = func(ctx context.Context, name string) (*campaign.Campaign, error) {
				if name == "broken" {
					return nil, errors.New("campaign.yml: no title")
				}
				return campaign.LoadFS(ctx, hearth.Campaigns, "campaigns/"+name)
			}
		})
		var got struct{ Campaigns []gameapi.CampaignInfo }
		h.ok(http.StatusOK, "GET", "/api/campaigns", asst, nil, &got)
		if len(got.Campaigns) != 2 || got.Campaigns[0].Name != "broken" || got.Campaigns[0].Problem != "campaign.yml: no title" ||
			got.Campaigns[1].Name != "saltmere" || got.Campaigns[1].Title == "" {
			t.Errorf("campaigns: %+v", got.Campaigns)
		}
	})
	t.Run("roles", func(t *testing.T) {
		h := newHarness(t)
		for _, c := range []struct {
			user string
			want int
		}{{"", http.StatusUnauthorized}, {player, http.StatusForbidden}, {trusted, http.StatusForbidden}, {asst, http.StatusOK}, {gm, http.StatusOK}} {
			if got, b, _ := h.do("GET", "/api/campaigns", c.user, nil); got != c.want {
				t.Errorf("as %q: %d, want %d: %s", c.user, got, c.want, b)
			}
		}
	})
}
