package lorebook

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// State carries timed effects (sticky and cooldown) from one activation to
// the next. It is plain JSON, so a game can persist it with the session; a
// State may hold the effects of several books, keyed "<book>.<uid>".
// The zero value is ready to use. Delay needs no state: it depends only on
// the turn.
type State struct {
	Sticky   map[string]Effect `json:"sticky,omitempty"`
	Cooldown map[string]Effect `json:"cooldown,omitempty"`
}

// Effect is one running timed effect, SillyTavern's WITimedEffect: active
// from turn Start until turn End. A protected effect (a cooldown that began
// when a sticky one ended) survives an evaluation that repeats its turn.
type Effect struct {
	Hash      string `json:"hash"` // the entry as it was; an edited entry drops its effects
	Start     int    `json:"start"`
	End       int    `json:"end"`
	Protected bool   `json:"protected,omitempty"`
}

func (b *Book) stateKey(uid int) string { return b.Name + "." + strconv.Itoa(uid) }

// entryFor resolves a state key of this book to the entry it was set for;
// ok is false for other books' keys, mine reports whether the key is this
// book's at all.
func (b *Book) entryFor(k string, hash string) (idx int, ok, mine bool) {
	rest, found := strings.CutPrefix(k, b.Name+".")
	if !found {
		return 0, false, false
	}
	uid, err := strconv.Atoi(rest)
	if err != nil {
		return 0, false, false
	}
	i, ok := b.byUID[uid]
	if !ok || b.Entries[i].hash != hash {
		return 0, false, true
	}
	return i, true, true
}

// checkTimed is SillyTavern's WorldInfoTimedEffects.checkTimedEffects: it
// expires effects, starts the cooldown of an entry whose stickiness just
// ended, and marks which entries are sticky or cooling down this turn.
func (r *run) checkTimed() {
	st, turn := r.st, r.in.Turn
	if st == nil {
		return
	}
	for k, eff := range st.Sticky {
		i, ok, mine := r.b.entryFor(k, eff.Hash)
		if !mine {
			continue
		}
		switch {
		case turn <= eff.Start && !eff.Protected:
			delete(st.Sticky, k) // the turn was repeated: the activation that set it is void
		case !ok:
			if turn >= eff.End {
				delete(st.Sticky, k)
			}
		case r.b.Entries[i].Sticky == 0:
			delete(st.Sticky, k)
		case turn >= eff.End:
			delete(st.Sticky, k)
			if e := &r.b.Entries[i]; e.Cooldown > 0 {
				if st.Cooldown == nil {
					st.Cooldown = map[string]Effect{}
				}
				st.Cooldown[k] = Effect{Hash: e.hash, Start: turn, End: turn + e.Cooldown, Protected: true}
				r.cooling[i] = true
			}
		default:
			r.sticky[i] = true
		}
	}
	for k, eff := range st.Cooldown {
		i, ok, mine := r.b.entryFor(k, eff.Hash)
		if !mine {
			continue
		}
		switch {
		case turn <= eff.Start && !eff.Protected:
			delete(st.Cooldown, k)
		case !ok:
			if turn >= eff.End {
				delete(st.Cooldown, k)
			}
		case r.b.Entries[i].Cooldown == 0:
			delete(st.Cooldown, k)
		case turn >= eff.End:
			delete(st.Cooldown, k)
		default:
			r.cooling[i] = true
		}
	}
}

// setTimed starts sticky and cooldown effects for the entries included this
// turn; an effect already running is not restarted.
func (r *run) setTimed() {
	st, turn := r.st, r.in.Turn
	if st == nil {
		return
	}
	for _, m := range r.included {
		e := &r.b.Entries[m.idx]
		k := r.b.stateKey(e.UID)
		if e.Sticky > 0 {
			if st.Sticky == nil {
				st.Sticky = map[string]Effect{}
			}
			if _, running := st.Sticky[k]; !running {
				st.Sticky[k] = Effect{Hash: e.hash, Start: turn, End: turn + e.Sticky}
			}
		}
		if e.Cooldown > 0 {
			if st.Cooldown == nil {
				st.Cooldown = map[string]Effect{}
			}
			if _, running := st.Cooldown[k]; !running {
				st.Cooldown[k] = Effect{Hash: e.hash, Start: turn, End: turn + e.Cooldown}
			}
		}
	}
}

// hashEntry fingerprints an entry's JSON, whitespace aside, so an edited
// entry does not inherit the timed effects of what it used to say.
func hashEntry(raw json.RawMessage) string {
	h := fnv.New64a()
	var v any
	if json.Unmarshal(raw, &v) == nil {
		if canon, err := json.Marshal(v); err == nil { // sorted keys, no spaces
			raw = canon
		}
	}
	h.Write(raw)
	return fmt.Sprintf("%016x", h.Sum64())
}

// Clone returns a copy that can be activated against without changing s,
// so a turn that fails leaves the state as it was. Clone of nil is an
// empty State.
func (s *State) Clone() *State {
	c := &State{}
	if s == nil {
		return c
	}
	if s.Sticky != nil {
		c.Sticky = make(map[string]Effect, len(s.Sticky))
		for k, v := range s.Sticky {
			c.Sticky[k] = v
		}
	}
	if s.Cooldown != nil {
		c.Cooldown = make(map[string]Effect, len(s.Cooldown))
		for k, v := range s.Cooldown {
			c.Cooldown[k] = v
		}
	}
	return c
}
