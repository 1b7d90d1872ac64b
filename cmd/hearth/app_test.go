package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/internal/hearthtest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/game"
)

// TestLibraryPlaysAsTheCommandLine plays the scripted session twice: with
// "hearth play --seed 1", and through the app package with its defaults,
// as a Go program would. Every turn must come out the same: input,
// narration and effects.
func TestLibraryPlaysAsTheCommandLine(t *testing.T) {
	b, err := os.ReadFile("testdata/saltmere-30.txt")
	if err != nil {
		t.Fatal(err)
	}
	cliDir := t.TempDir()
	run(t, strings.NewReader(string(b)), "play", "--new", "--seed", "1", "--data", cliDir, "--campaign", saltmere)
	cli, _ := onlySession(t, cliDir)

	ctx := context.Background()
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	a, err := app.Open(ctx, app.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	c, err := app.LoadCampaign(ctx, saltmere)
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.NewGame(ctx, c, 1, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			if _, err := s.ActStream(ctx, line, func(string) {}); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
		}
	}
	if s.Turn() != cli.Turn() || s.Turn() != 30 {
		t.Fatalf("the library played %d turns, the command line %d", s.Turn(), cli.Turn())
	}
	want, err := cli.Turns(ctx, 1, cli.Turn())
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Turns(ctx, 1, s.Turn())
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Input != g.Input || w.Narrative != g.Narrative || string(w.Effects) != string(g.Effects) {
			t.Errorf("turn %d differs:\ncommand line: %q → %s\n%s\nlibrary:      %q → %s\n%s", w.Number, w.Input, w.Effects, w.Narrative, g.Input, g.Effects, g.Narrative)
		}
	}
}

// TestServePlaysSkillsCampaign creates a game of a campaign that plays
// through skills (pipeline: skills) over the game API of a real hearth
// serve, plays a turn through it, and checks the skills pipeline played
// it.
func TestServePlaysSkillsCampaign(t *testing.T) {
	dir, gmKey, _ := dataWithSecret(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	camp := filepath.Join(dir, "campaigns", "skilled")
	if err := os.CopyFS(camp, os.DirFS(filepath.Join(root, "campaigns/saltmere"))); err != nil {
		t.Fatal(err)
	}
	yml := filepath.Join(camp, "campaign.yml")
	cy, _ := os.ReadFile(yml)
	cy = regexp.MustCompile(`(?m)^pipeline:.*$`).ReplaceAll(cy, nil)
	if err := os.WriteFile(yml, append(cy, []byte("\npipeline: skills\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	url := startServeIn(t, dir, root) // the checkout's ./skills
	req, _ := http.NewRequest("POST", url+"/api/sessions", strings.NewReader(`{"campaign":"skilled"}`))
	req.Header.Set("Authorization", "Bearer "+gmKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		ID string `json:"id"`
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	json.Unmarshal(raw, &created)
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK || created.ID == "" {
		t.Fatalf("create: %d %s", resp.StatusCode, raw)
	}
	cs := connectMCP(t, &sdk.StreamableClientTransport{Endpoint: url + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: hearthtest.Bearer{Key: gmKey}}})
	out := must(callText(t, cs, "game_act", map[string]any{"session_id": created.ID, "input": "roll 2d6 to see how the tide runs"}))
	if !strings.Contains(out, "[Turn 1") {
		t.Fatalf("game_act: %s", out)
	}
	req, _ = http.NewRequest("GET", url+"/api/sessions/"+created.ID+"/turns", nil)
	req.Header.Set("Authorization", "Bearer "+gmKey)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		body.WriteString(sc.Text())
	}
	if !strings.Contains(body.String(), `"pass":"skills"`) {
		t.Fatalf("the turn was not played by the skills pipeline: %s", body.String())
	}
}
