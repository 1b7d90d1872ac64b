package narrative

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// BeatOptions tunes EvaluateBeats. The zero value gives the defaults.
type BeatOptions struct {
	// PerScene is the most beats one transition may trigger; 0 is 1.
	PerScene int
}

// EvaluateBeats decides, at the transition into scene number scene
// (1-based), what happens to every beat the log does not already hold as
// triggered or unreachable. It is called at each scene transition; apply
// the result to the log with BeatLog.Apply and persist it.
//
// A pending beat is:
//   - skipped as unreachable when it can no longer trigger: its window
//     closed (scene > MaxScene), a prerequisite is unknown, unreachable or
//     part of a prerequisite cycle, or the earliest scene its
//     prerequisites allow (each must trigger in an earlier transition) is
//     past its window;
//   - left waiting when its window has not opened, a prerequisite has not
//     triggered yet, or a condition does not hold (the reason names it);
//   - otherwise eligible.
//
// Eligible beats are ranked: beats already deferred at an earlier
// transition first (so a beat is not starved by newer ones), then higher
// priority, then the window closing soonest, then longest eligible, then
// the order of beats. The first PerScene trigger; the rest are deferred
// and stay eligible. So a beat whose conditions are met triggers at that
// transition or, if a higher-ranked beat takes the slot, at the next one:
// within two scenes (SC-035, SC-044) whenever no more than PerScene other
// beats are waiting with it; with k beats eligible at once the last
// triggers ⌈k/PerScene⌉−1 transitions later. A deferred beat whose
// conditions stop holding waits again and loses its place.
//
// Decisions come back with triggers first, in rank order, then the other
// beats in the order given. The function is pure and deterministic; it
// returns an error only for a malformed beat set (empty or duplicate IDs,
// bad windows or conditions), never for an unreachable beat.
func EvaluateBeats(beats []Beat, v View, log BeatLog, scene int, opt BeatOptions) ([]Decision, error) {
	if len(beats) > MaxBeats {
		return nil, fmt.Errorf("%d plot beats; the limit is %d", len(beats), MaxBeats)
	}
	if scene < 1 {
		return nil, fmt.Errorf("scene %d: scenes are numbered from 1", scene)
	}
	per := opt.PerScene
	if per <= 0 {
		per = DefaultPerScene
	}
	byID := make(map[string]int, len(beats))
	for i := range beats {
		if err := beats[i].validate(); err != nil {
			return nil, err
		}
		if _, dup := byID[beats[i].ID]; dup {
			return nil, fmt.Errorf("plot beat %s is defined twice", beats[i].ID)
		}
		byID[beats[i].ID] = i
	}
	r := reach{beats: beats, byID: byID, log: log, scene: scene, memo: map[string]reachability{}}

	var out, eligible []Decision
	for i := range beats {
		b := &beats[i]
		st := log[b.ID]
		if st.Status == Triggered || st.Status == Unreachable {
			continue
		}
		d := Decision{Beat: b.ID, Scene: scene, Priority: b.priority()}
		switch e := r.earliest(b.ID); {
		case e.never:
			d.Action, d.Reason = Skip, e.why
		case e.scene > scene:
			d.Action, d.Reason = Wait, e.why
		default:
			if ok, why := conditionsHold(b, v); !ok {
				d.Action, d.Reason = Wait, why
				break
			}
			d.EligibleSince = scene
			if st.EligibleSince > 0 && st.EligibleSince < scene {
				d.EligibleSince = st.EligibleSince
			}
			eligible = append(eligible, d)
			continue
		}
		out = append(out, d)
	}

	slices.SortStableFunc(eligible, func(a, b Decision) int {
		ba, bb := &beats[byID[a.Beat]], &beats[byID[b.Beat]]
		return cmp.Or(
			cmp.Compare(cmpBool(b.EligibleSince < scene), cmpBool(a.EligibleSince < scene)),
			cmp.Compare(b.Priority, a.Priority),
			cmp.Compare(closes(ba), closes(bb)),
			cmp.Compare(a.EligibleSince, b.EligibleSince),
		)
	})
	var triggers []Decision
	for i, d := range eligible {
		if i < per {
			d.Action = Trigger
			if d.EligibleSince < scene {
				d.Reason = fmt.Sprintf("eligible since scene %d; triggered after waiting for a slot", d.EligibleSince)
			} else {
				d.Reason = "window open, prerequisites triggered, conditions met"
			}
			triggers = append(triggers, d)
			continue
		}
		d.Action = Defer
		d.Reason = fmt.Sprintf("eligible; this scene's %d slot(s) went to %s", per, names(eligible[:per]))
		out = append(out, d)
	}
	// Restore the order of beats for everything but the triggers.
	slices.SortStableFunc(out, func(a, b Decision) int { return cmp.Compare(byID[a.Beat], byID[b.Beat]) })
	return append(triggers, out...), nil
}

func cmpBool(b bool) int {
	if b {
		return 1
	}
	return 0
}

// closes returns the last scene of a beat's window, open windows last.
func closes(b *Beat) int {
	if b.MaxScene == 0 {
		return neverScene
	}
	return b.MaxScene
}

func names(ds []Decision) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.Beat
	}
	return strings.Join(s, ", ")
}

func conditionsHold(b *Beat, v View) (bool, string) {
	for _, c := range b.Conditions {
		if ok, why := c.Holds(v); !ok {
			return false, "condition not met: " + why
		}
	}
	return true, ""
}

// reachability is the earliest scene a beat can trigger in, or never.
type reachability struct {
	scene int
	never bool
	why   string
}

// reach computes earliest scenes through the prerequisite graph, with
// memoisation and cycle detection.
type reach struct {
	beats []Beat
	byID  map[string]int
	log   BeatLog
	scene int
	memo  map[string]reachability
	path  []string // beats being computed, to name a cycle
}

func (r *reach) earliest(id string) reachability {
	if e, ok := r.memo[id]; ok {
		return e
	}
	if i := slices.Index(r.path, id); i >= 0 {
		return reachability{never: true, why: "prerequisite cycle: " + strings.Join(append(slices.Clone(r.path[i:]), id), " → ")}
	}
	i, ok := r.byID[id]
	if !ok {
		return reachability{never: true, why: fmt.Sprintf("%s is not a plot beat", id)}
	}
	switch st := r.log[id]; st.Status {
	case Triggered:
		return reachability{scene: st.Scene}
	case Unreachable:
		return reachability{never: true, why: st.Reason}
	}
	r.path = append(r.path, id)
	defer func() { r.path = r.path[:len(r.path)-1] }()

	b := &r.beats[i]
	e := reachability{scene: max(r.scene, b.MinScene)}
	if b.MinScene > r.scene {
		e.why = fmt.Sprintf("window opens at scene %d", b.MinScene)
	}
	for _, p := range b.Prerequisites {
		pe := r.earliest(p)
		if pe.never {
			e = reachability{never: true, why: fmt.Sprintf("prerequisite %s can never trigger (%s)", p, pe.why)}
			break
		}
		if e.why == "" {
			if st := r.log[p]; st.Status != Triggered {
				e.why = "waiting for prerequisite " + p
			} else if pe.scene >= r.scene {
				e.why = fmt.Sprintf("prerequisite %s triggered in scene %d; this beat may follow from the next", p, pe.scene)
			}
		}
		e.scene = max(e.scene, pe.scene+1)
	}
	if !e.never && b.MaxScene > 0 && e.scene > b.MaxScene {
		if r.scene > b.MaxScene {
			e = reachability{never: true, why: fmt.Sprintf("window closed after scene %d", b.MaxScene)}
		} else {
			e = reachability{never: true, why: fmt.Sprintf("prerequisites allow scene %d at the earliest; the window closes after scene %d", e.scene, b.MaxScene)}
		}
	}
	r.memo[id] = e
	return e
}
