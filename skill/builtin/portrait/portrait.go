// Package portrait is the portrait skill's program (scripts "portrait" and
// the seed's "lookup-portrait"): it finds the campaign's art for a
// character or a scene among the assets of the campaign being played
// (HEARTH_CAMPAIGN_DIR), by the keywords of each asset (its .keywords.txt
// sidecar, else the words of its file name), or for a state path through
// the campaign's state-bound UI asset index (ui/state/, ui/items/). It
// reports the asset as an asset event (the file) and a portrait ui_event
// whose url the browser can show; with nothing that fits it names the
// placeholder silhouette instead. It never generates images.
package portrait

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/skill/protocol"
)

// EnvCampaignDir is where the campaign being played is (skill.EnvCampaignDir).
const EnvCampaignDir = "HEARTH_CAMPAIGN_DIR"

// URL is where the game API serves a campaign's asset.
func URL(campaignName, rel string) string {
	return "/api/campaigns/" + campaignName + "/assets/" + rel
}

// Run is the whole program; it returns the exit status.
func Run(stdin io.Reader, stdout, stderr io.Writer) int {
	out := protocol.NewWriter(stdout)
	in, err := protocol.ReadInput(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "portrait:", err)
		return 2
	}
	out.RequestID = in.RequestID
	fail := func(code, msg string) int {
		out.Emit(&protocol.ErrorEvent{ErrorCode: code, ErrorMessage: msg})
		out.Emit(&protocol.Done{OK: false, Summary: msg})
		return 0
	}
	dir := os.Getenv(EnvCampaignDir)
	if dir == "" {
		return fail("no_campaign", "no campaign directory ("+EnvCampaignDir+"): run me from a game of a campaign on disk")
	}
	p, err := campaign.LoadPack(context.Background(), dir)
	if err != nil {
		return fail("campaign_unreadable", err.Error())
	}
	str := func(k string) string { s, _ := in.Input[k].(string); return strings.TrimSpace(s) }
	subject := firstOf(str("character"), str("entityId"), str("npc"), str("location"), str("statePath"))
	var a campaign.Asset
	var found bool
	var how string
	if sp := str("statePath"); sp != "" {
		a, found = p.Index.Resolve(sp, str("itemType"))
		how = "state path " + sp
	}
	if !found {
		words := keywords(subject, str("name"), str("description"))
		if ks, ok := in.Input["keywords"].([]any); ok {
			for _, k := range ks {
				if s, ok := k.(string); ok {
					words = append(words, keywords(s)...)
				}
			}
		}
		a, found = Best(p.Assets, words, str("location") == "")
		how = "keywords " + strings.Join(words, ", ")
	}
	if !found {
		out.Emit(&protocol.Log{Level: protocol.LevelInfo, Message: "no campaign art for " + how + "; the placeholder silhouette stands in"})
		out.Emit(&protocol.UIEvent{Event: "portrait", Payload: map[string]any{"subject": subject, "placeholder": "silhouette"}})
		if subject != "" && str("statePath") == "" {
			// An empty path keeps the answer with the game too, so the
			// pipeline does not ask again every turn.
			out.Emit(&protocol.StatePatch{Patch: map[string]any{"portraits": map[string]any{subject: ""}}})
		}
		return done(out, "no portrait for "+subject)
	}
	name := filepath.Base(dir)
	out.Emit(&protocol.Log{Level: protocol.LevelDebug, Message: fmt.Sprintf("Grounded %q in %s (%s)", subject, a.Path, how)})
	out.Emit(&protocol.Asset{AssetID: "portrait-" + a.Path, Kind: a.Type, MediaType: mediaType(a.Format),
		Path: filepath.Join(dir, filepath.FromSlash(a.Path)), Metadata: map[string]any{"keywords": a.Keywords}})
	payload := map[string]any{"subject": subject, "path": a.Path, "url": URL(name, a.Path), "campaign": name, "keywords": a.Keywords}
	if a.AltText != "" {
		payload["alt_text"] = a.AltText
	}
	out.Emit(&protocol.UIEvent{Event: "portrait", Payload: payload})
	if subject != "" {
		// Kept with the game, so the same art comes back in later sessions;
		// the url, since the game's state does not name the campaign's
		// directory, which the game API serves assets by.
		out.Emit(&protocol.StatePatch{Patch: map[string]any{"portraits": map[string]any{subject: URL(name, a.Path)}}})
	}
	return done(out, "portrait "+a.Path)
}

// Best is the image whose keywords share most words with want; art under
// art/characters/ wins ties when character is true, art elsewhere
// otherwise, then the shorter path. UI icons are never portraits.
func Best(assets []campaign.Asset, want []string, character bool) (campaign.Asset, bool) {
	var best campaign.Asset
	bestScore := 0
	for _, a := range assets {
		if a.Type != "image" && a.Type != "video" {
			continue
		}
		score := 0
		for _, k := range a.Keywords {
			for _, w := range keywords(k) {
				if slices.Contains(want, w) {
					score += 10
				}
			}
		}
		if score == 0 {
			continue
		}
		if strings.HasPrefix(a.Path, "art/characters/") == character {
			score++
		}
		if score > bestScore || (score == bestScore && len(a.Path) < len(best.Path)) {
			best, bestScore = a, score
		}
	}
	return best, bestScore > 0
}

// keywords are the lower-case words of s, split at spaces, _ and -.
func keywords(ss ...string) []string {
	var out []string
	for _, s := range ss {
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return r == ' ' || r == '_' || r == '-' || r == ',' || r == '.' || r == ':'
		}) {
			if len(w) > 2 && !slices.Contains(out, w) && !slices.Contains(stop, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

var stop = []string{"the", "and", "with", "npc", "his", "her", "its", "who", "has"}

func mediaType(format string) string {
	switch format {
	case "jpg", "jpeg":
		return "image/jpeg"
	case "svg":
		return "image/svg+xml"
	case "webm", "mp4":
		return "video/" + format
	}
	return "image/" + path.Clean(format)
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func done(out *protocol.Writer, summary string) int {
	if err := out.Emit(&protocol.Done{OK: true, Summary: summary}); err != nil {
		return 1
	}
	return 0
}
