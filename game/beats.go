package game

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/world"
)

// beatsVar is where the story's beat log lives in world.State.Vars: in
// the state, so restores and forks carry it like everything else.
const beatsVar = "plot_beats"

// Beat is a campaign's plot beat as the game plays it: the conditions
// narrative evaluates, and what the GM is told when it triggers.
type Beat struct {
	narrative.Beat
	Description string
}

// BeatsOf converts a campaign's plot beats for play. A condition the
// engine cannot test (an arbitrary state path) keeps its beat from ever
// triggering, and is reported.
func BeatsOf(beats []campaign.Beat) ([]Beat, []error) {
	var out []Beat
	var errs []error
	for _, b := range beats {
		nb := narrative.Beat{ID: b.ID, Title: b.Title, Priority: narrative.Priority(b.Priority),
			MinScene: b.MinScene, MaxScene: b.MaxScene, Prerequisites: b.Requires}
		if b.AfterScenes > 0 && b.AfterScenes+1 > nb.MinScene {
			nb.MinScene = b.AfterScenes + 1
		}
		ok := true
		for _, c := range b.Conditions {
			text := conditionText(c)
			nc, err := narrative.ParseCondition(text)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: plot beat %s: condition %q cannot be tested in play: %w", b.File, c.Line, b.ID, text, err))
				ok = false
				continue
			}
			nb.Conditions = append(nb.Conditions, nc)
		}
		if !ok {
			continue
		}
		for _, o := range b.Outcomes {
			if raw, err := json.Marshal(o); err == nil {
				nb.Consequences = append(nb.Consequences, raw)
			}
		}
		desc := cmpOr(b.Description, strings.TrimSpace(b.Text))
		out = append(out, Beat{Beat: nb, Description: cmpOr(desc, b.Title)})
	}
	return out, errs
}

func conditionText(c campaign.Condition) string {
	var s string
	switch c.Kind {
	case campaign.CondStat, campaign.CondReputation:
		s = fmt.Sprintf("%s %s %s %s", c.Kind, c.Subject, cmpOr(c.Op, ">="), c.Value)
	case campaign.CondLocation, campaign.CondFlag, campaign.CondItem:
		s = fmt.Sprintf("%s %s", c.Kind, c.Subject)
	default:
		s = fmt.Sprintf("%s %s %s %s", c.Kind, c.Subject, c.Op, c.Value)
	}
	if c.Not {
		s = "not " + s
	}
	return s
}

// UseBeats gives the session the campaign's plot beats, evaluated at
// every scene transition from now on.
func (s *Session) UseBeats(beats []Beat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.beats = beats
}

// beatLog reads the story's beat log from the state.
func beatLog(w *world.State) narrative.BeatLog {
	log := narrative.BeatLog{}
	raw, ok := w.Vars[beatsVar]
	if !ok {
		return log
	}
	b, err := json.Marshal(raw)
	if err == nil {
		_ = json.Unmarshal(b, &log)
	}
	return log
}

// evaluateBeats runs at the end of a turn that began a scene (seed 001
// §7.5): it records the decisions and applies the consequences of
// triggered beats as effects of the turn, so they commit with it.
func (t *Turn) evaluateBeats() error {
	s := t.s
	if len(s.beats) == 0 || s.w.Scene.Number == t.sceneAtStart {
		return nil
	}
	nbs := make([]narrative.Beat, len(s.beats))
	for i, b := range s.beats {
		nbs[i] = b.Beat
	}
	log := beatLog(s.w)
	ds, err := narrative.EvaluateBeats(nbs, narrative.StateView{S: s.w}, log, s.w.Scene.Number, narrative.BeatOptions{})
	if err != nil {
		s.opts.Logger.Warn("plot beats not evaluated", "scene", s.w.Scene.Number, "err", err)
		return nil
	}
	changed := map[string]any{}
	next := log.Apply(ds)
	for _, d := range ds {
		if st, ok := next[d.Beat]; ok && st != log[d.Beat] {
			changed[d.Beat] = st
		}
	}
	if len(changed) == 0 {
		return nil
	}
	var patch map[string]any
	b, _ := json.Marshal(map[string]any{beatsVar: changed})
	if err := json.Unmarshal(b, &patch); err != nil {
		return fmt.Errorf("record plot beats: %w", err)
	}
	effects := world.Effects{world.StatePatched{Patch: patch}}
	for _, d := range ds {
		if d.Action != narrative.Trigger {
			continue
		}
		t.beatsTriggered = append(t.beatsTriggered, d.Beat)
		for _, c := range s.beat(d.Beat).Consequences {
			var o struct {
				StatePatch map[string]any `json:"state_patch"`
				// NPCMood is the seed's npc_mood_change: {merlin:
				// more_secretive}, kept as npcs.<id>.mood.
				NPCMood map[string]any `json:"npc_mood_change"`
			}
			if json.Unmarshal(c, &o) != nil {
				continue
			}
			if len(o.StatePatch) > 0 {
				effects = append(effects, world.StatePatched{Patch: world.ExpandPaths(o.StatePatch)})
			}
			if len(o.NPCMood) > 0 {
				npcs := map[string]any{}
				for id, mood := range o.NPCMood {
					npcs[id] = map[string]any{"mood": mood}
				}
				effects = append(effects, world.StatePatched{Patch: map[string]any{"npcs": npcs}})
			}
		}
	}
	for _, e := range effects {
		if err := s.w.Apply(e); err != nil {
			s.opts.Logger.Warn("plot beat consequence not applied", "err", err)
			continue
		}
		t.effects = append(t.effects, e)
	}
	if s.opts.Pipeline == nil || t.fallback != "" {
		// Offline nobody else will tell the beat: the player hears the
		// author's words now. A model weaves it in from BeatSections.
		for _, id := range t.beatsTriggered {
			t.tell(s.beat(id).Description)
		}
	}
	return nil
}

// sceneTime is how much game time a turn must pass for the story to
// move to a new scene where it stands.
const sceneTime = world.Hour

// passScene begins a new scene at the same place when the turn passed an
// hour or more without one (a rest, a long wait). A campaign of a single
// place still has scene transitions, so its plot beats (seed 001 §7.5,
// checked at each transition) can fire.
func (t *Turn) passScene() error {
	w := t.s.w
	pc := w.PC()
	if w.Scene.Number != t.sceneAtStart || w.Time-t.startTime < sceneTime || pc == nil || w.Combat != nil {
		return nil
	}
	title := pc.Location
	if l := w.Locations[pc.Location]; l != nil {
		title = l.Name
	}
	e := world.SceneChanged{Scene: world.Scene{Number: w.Scene.Number + 1, Title: title, Location: pc.Location,
		Started: w.Turn, StartAt: w.Time}}
	if err := w.Apply(e); err != nil {
		return fmt.Errorf("begin a new scene: %w", err)
	}
	t.effects = append(t.effects, e)
	return nil
}

func (s *Session) beat(id string) Beat {
	for _, b := range s.beats {
		if b.ID == id {
			return b
		}
	}
	return Beat{}
}

// BeatSections tells the game master which plot beats triggered in the
// current scene, to weave into it. Beats are the GM's plans: players do
// not see them.
func (t *Turn) BeatSections(ctx context.Context, role access.Level) []contextpack.Section {
	if role < access.Assistant || len(t.s.beats) == 0 {
		return nil
	}
	var lines []string
	for id, st := range beatLog(t.s.w) {
		if st.Status == narrative.Triggered && st.Scene == t.s.w.Scene.Number {
			b := t.s.beat(id)
			lines = append(lines, fmt.Sprintf("- %s: %s", cmpOr(b.Title, id), oneLineText(b.Description)))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	slices.Sort(lines)
	text := "Plot beats to bring into this scene:\n" + strings.Join(lines, "\n")
	return []contextpack.Section{{Name: "plot beats", Tier: contextpack.TierState, Text: text, Tokens: len(text)/4 + 1}}
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
