package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/host"
	"github.com/hearth-rpg/hearth/skill/pattern"
	"github.com/hearth-rpg/hearth/skill/plan"
	"github.com/hearth-rpg/hearth/skill/protocol"
	"github.com/hearth-rpg/hearth/skill/replan"
)

// SkillsDir is where skills are found: Options.SkillsDir, else ./skills
// when it exists (a checkout), else DATA/skills.
func (a *App) SkillsDir() (string, error) {
	return SkillsDir(a.opts.SkillsDir, a.dir)
}

// SkillsDir is where skills are found: dir when given, else ./skills when
// it exists (a checkout), else dataDir/skills.
func SkillsDir(dir, dataDir string) (string, error) {
	if dir != "" {
		return filepath.Abs(dir)
	}
	if st, err := os.Stat("skills"); err == nil && st.IsDir() {
		return filepath.Abs("skills")
	}
	return filepath.Join(dataDir, "skills"), nil
}

// InstallSkills writes each skill that ships with Hearth (hearth.Skills)
// into dir unless dir has a skill of that name already, whose files are
// the user's; it returns the names it wrote. This is how a fresh install
// has its skills without a repository: their scripts run the hearth
// binary itself (package skill/builtin).
func InstallSkills(dir string) ([]string, error) {
	entries, err := fs.ReadDir(hearth.Skills, "skills")
	if err != nil {
		return nil, err
	}
	var installed []string
	for _, e := range entries {
		name := e.Name()
		target := filepath.Join(dir, name)
		if _, err := os.Lstat(target); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return installed, err
		}
		// Written beside the target and renamed into place, so a skill
		// is either all there or absent.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return installed, err
		}
		tmp, err := os.MkdirTemp(dir, "."+name+"-")
		if err != nil {
			return installed, err
		}
		src := path.Join("skills", name)
		err = fs.WalkDir(hearth.Skills, src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			out := filepath.Join(tmp, filepath.FromSlash(strings.TrimPrefix(p, src)))
			if d.IsDir() {
				return os.MkdirAll(out, 0o755)
			}
			b, err := fs.ReadFile(hearth.Skills, p)
			if err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if path.Base(path.Dir(p)) == "scripts" {
				mode = 0o755 // embed keeps no modes; scripts must run
			}
			return os.WriteFile(out, b, mode)
		})
		if err == nil {
			err = os.Chmod(tmp, 0o755) // MkdirTemp's directory is private
		}
		if err == nil {
			err = os.Rename(tmp, target)
		}
		if err != nil {
			os.RemoveAll(tmp)
			return installed, fmt.Errorf("install the bundled skill %s: %w", name, err)
		}
		installed = append(installed, name)
	}
	return installed, nil
}

// Skills discovers the skills in SkillsDir; a misconfigured skill is a
// warning, never fatal.
func (a *App) Skills() (*skill.Set, []*skill.Warning, error) {
	dir, err := a.SkillsDir()
	if err != nil {
		return nil, nil, err
	}
	if dir == filepath.Join(a.dir, "skills") {
		if _, err := InstallSkills(dir); err != nil {
			return nil, nil, err
		}
	}
	set, warns, err := skill.Discover(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("read the skills in %s: %w", dir, err)
	}
	return set, warns, nil
}

// skillsPipeline plays turns through the skills: plans from the planner
// model when one is configured, else the offline pattern planner; the DAG
// executor and the replan loop. Its scripts run with campaignDir (the
// game's campaign on disk, "" for none) as HEARTH_CAMPAIGN_DIR, so the
// portrait skill finds the campaign's art. Its host closes with the App.
func (a *App) skillsPipeline(ctx context.Context, campaignDir string) (*modelgm.Skills, error) {
	set, warns, err := a.Skills()
	if err != nil {
		return nil, err
	}
	for _, w := range warns {
		a.warn("cli.warning", map[string]any{"Warning": fmt.Sprint(w)})
	}
	var planner replan.Planner = pattern.Planner{}
	role := "planner"
	if a.Offline(role) {
		role = "narrator"
	}
	if !a.Offline(role) {
		p, err := a.Provider(ctx, role)
		if err != nil {
			return nil, fmt.Errorf("the skills planner's model: %w", err)
		}
		var guidance []string
		for _, s := range set.All() {
			if gd, err := s.Guidance(); err == nil && gd != "" {
				guidance = append(guidance, s.Name+": "+strings.Join(strings.Fields(gd), " "))
			}
		}
		planner = &modelgm.ModelPlanner{Role: modelgm.Role{Provider: p, Model: a.Role(role).Model}, Guidance: strings.Join(guidance, "\n")}
	}
	srv, err := host.Start()
	if err != nil {
		return nil, err
	}
	a.onClose(srv.Close)
	// Skills edited while Hearth runs are used as edited from their next
	// call.
	live := skill.LiveOf(set, a.log)
	return &modelgm.Skills{Host: srv, Loop: &replan.Loop{
		Planner:  planner,
		Executor: &plan.Executor{Runner: &plan.SkillRunner{Live: live, CampaignDir: campaignDir}, RetryDefaults: live.RetryPolicy},
		Catalog:  func() []skill.Summary { return live.Summaries(nil) },
		Health:   &skill.Health{},
	}}, nil
}

// campaignDir is where a game's campaign is on disk, as an absolute path,
// or "" when it is not on disk (a campaign built into the binary and
// played away from a checkout): skills then have no campaign to read.
func campaignDir(s *game.Session) string {
	p := s.CampaignPath()
	if p == "" {
		p = hearth.DefaultCampaign
	}
	st, err := os.Stat(p)
	if err != nil || !st.IsDir() {
		return ""
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	return abs
}

// choiceMaker finds the player-choices skill for choice-based play; when
// it is missing the game offers its fallback choices.
func (a *App) choiceMaker() game.ChoiceMaker {
	set, warns, err := a.Skills()
	if err != nil {
		a.warn("cli.play.basic_choices", map[string]any{"Err": err.Error()})
		return noChoices{err}
	}
	for _, w := range warns {
		a.warn("cli.warning", map[string]any{"Warning": fmt.Sprint(w)})
	}
	s := set.Get("player-choices")
	if s == nil {
		err := fmt.Errorf("no player-choices skill in %s", set.Dir())
		a.warn("cli.play.basic_choices", map[string]any{"Err": err.Error()})
		return noChoices{err}
	}
	return skillChoices{skill: s}
}

// skillChoices asks the player-choices skill for the next choices.
type skillChoices struct {
	skill *skill.Skill
}

func (c skillChoices) Choices(ctx context.Context, scene map[string]any) ([]string, error) {
	inv, err := c.skill.Prepare("choose", skill.Call{RequestID: "choices", Input: map[string]any{"scene": scene},
		LookupEnv: os.LookupEnv, Timeout: 10 * time.Second})
	if err != nil {
		return nil, err
	}
	res, err := skill.Run(ctx, inv)
	if err != nil {
		return nil, err
	}
	for _, e := range res.Events {
		ui, ok := e.(*protocol.UIEvent)
		if !ok || ui.Event != "narrative_choice" {
			continue
		}
		var p struct {
			Options []struct {
				Text string `json:"text"`
			} `json:"options"`
		}
		b, _ := json.Marshal(ui.Payload)
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("player-choices: bad narrative_choice payload: %w", err)
		}
		var out []string
		for _, o := range p.Options {
			if o.Text != "" {
				out = append(out, o.Text)
			}
		}
		return out, nil
	}
	return nil, errors.New("player-choices sent no narrative_choice event")
}

// noChoices stands in when the skill is missing.
type noChoices struct{ why error }

func (n noChoices) Choices(context.Context, map[string]any) ([]string, error) { return nil, n.why }
