package game

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/lorebook"
	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/tokens"
)

// loreTrace is what a turn's record keeps of the lore it played with:
// "why did the GM not know X" is answered from it.
type loreTrace struct {
	Scene    int        `json:"scene"`
	Prepared bool       `json:"prepared,omitempty"` // the scene began (or a character joined) this turn
	Passages []string   `json:"passages,omitempty"`
	Cuts     []lore.Cut `json:"cuts,omitempty"`
	// Turn is the lore given to the turn's model calls: keyword lore and
	// the cache within one budget. KeywordState carries keyword lore's
	// timed effects to the next turn.
	Turn         *lore.TurnLore  `json:"turn,omitempty"`
	KeywordState *lorebook.State `json:"keyword_state,omitempty"`
	// Terms are the key words of each passage the turn's lore offered
	// (Turn.Kept when a model read lore, else the scene cache's), so
	// evaluation can judge relevance from the record alone.
	Terms map[string][]string `json:"terms,omitempty"`
	// Pending says why the turn had no scene lore: the index was still
	// being built.
	Pending string `json:"pending,omitempty"`
}

// Lore returns the lore cache of the scene the turn is in. The cache is
// prepared when a scene begins and extended when a character joins it
// (seed 004); otherwise it is read, never re-queried. Nil when the session
// has no Lorekeeper. Lore that cannot be prepared is logged and played
// without: a turn never fails for want of lore.
func (t *Turn) Lore(ctx context.Context) *lore.Cache {
	s := t.s
	k := s.opts.Lore
	if k == nil {
		return nil
	}
	c := t.lore
	if c == nil {
		c = s.sceneLore(ctx)
	}
	w := s.w
	switch {
	case c == nil || c.Pending != "" || c.Scene != w.Scene.Number || c.Location != w.Scene.Location:
		fresh, err := k.Scene(ctx, w)
		if err != nil {
			s.opts.Logger.Warn("scene lore unavailable; playing without it", "scene", w.Scene.Number, "err", err)
			return c
		}
		c, t.lorePrepared = fresh, true
	default:
		joined := *c
		joined.NPCBriefings = append([]lore.Briefing(nil), c.NPCBriefings...)
		added, err := k.Join(ctx, w, &joined)
		if err != nil {
			s.opts.Logger.Warn("lore for a new arrival unavailable", "scene", w.Scene.Number, "err", err)
		}
		if added {
			c, t.lorePrepared = &joined, true
		}
	}
	t.lore = c
	return c
}

// LoreSections is the turn's lore as packet sections for a reader with
// role: the scene cache and the keyword lore the recent conversation
// brought up, within one budget. What the role may not see is not in
// them. It is chosen once per turn, whoever asks first.
func (t *Turn) LoreSections(ctx context.Context, role access.Level) []contextpack.Section {
	k := t.s.opts.Lore
	if k == nil {
		return nil
	}
	tok, err := tokens.CL100K()
	count := func(s string) int { return len(s)/4 + 1 }
	if err == nil {
		count = tok.Count
	}
	if t.turnLore == nil {
		var msgs []string
		if recent, err := t.Recent(ctx, 3); err == nil {
			for _, r := range recent {
				msgs = append(msgs, r.Input, r.Narrative)
			}
		}
		msgs = append(msgs, t.Input)
		st := t.s.keywordState.Clone()
		tl := k.Turn(lore.TurnInput{Cache: t.Lore(ctx), Messages: msgs, Turn: t.Number, Seed: t.s.meta.Seed, State: st, Counter: tok})
		t.turnLore, t.keywordState = &tl, st
	}
	return t.turnLore.Sections(role, count)
}

// sceneLore is the stored cache for the current scene, or nil.
func (s *Session) sceneLore(ctx context.Context) *lore.Cache {
	if s.lore != nil {
		return s.lore
	}
	l, err := s.st.SceneLore(ctx, s.branch.ID, s.head)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.opts.Logger.Warn("read scene lore", "err", err)
		}
		return nil
	}
	var c lore.Cache
	if err := json.Unmarshal(l.Lore, &c); err != nil {
		s.opts.Logger.Warn("stored scene lore is unreadable; preparing it again", "turn", l.Turn, "err", err)
		return nil
	}
	s.lore = &c
	return s.lore
}

// restoreKeywordState reads keyword lore's timed effects as the turn at
// head left them.
func (s *Session) restoreKeywordState(ctx context.Context) {
	s.keywordState = &lorebook.State{}
	if s.opts.Lore == nil || s.head == 0 {
		return
	}
	ts, err := s.st.Turns(ctx, s.branch.ID, s.head, s.head)
	if err != nil || len(ts) == 0 {
		return
	}
	var p struct {
		Lore *loreTrace `json:"lore"`
	}
	if json.Unmarshal(ts[0].Passes, &p) == nil && p.Lore != nil && p.Lore.KeywordState != nil {
		s.keywordState = p.Lore.KeywordState
	}
}

// UseMemories gives the session a memory store, for a session opened
// without one.
func (s *Session) UseMemories(m Memories) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Memories = m
}

// UseLore gives the session a Lorekeeper, for a session opened without
// one. A game that has not begun has its opening scene prepared now.
func (s *Session) UseLore(ctx context.Context, k Lorekeeper) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Lore = k
	s.lore = nil
	s.restoreKeywordState(ctx)
	if s.head == 0 && s.sceneLore(ctx) == nil {
		s.prepareOpening(ctx)
	}
}

// prepareOpening stores the opening scene's lore with turn 0.
func (s *Session) prepareOpening(ctx context.Context) {
	if s.opts.Lore == nil {
		return
	}
	c, err := s.opts.Lore.Scene(ctx, s.w)
	if err != nil {
		s.opts.Logger.Warn("opening scene lore unavailable", "err", err)
		return
	}
	b, err := json.Marshal(c)
	if err != nil {
		return
	}
	if err := s.st.PutSceneLore(ctx, &store.SceneLore{BranchID: s.branch.ID, Turn: 0, Scene: c.Scene, Lore: b}); err != nil {
		s.opts.Logger.Warn("store opening scene lore", "err", err)
		return
	}
	s.lore = c
}

// loreForCommit materialises the turn's lore at a boundary even when the
// pipeline did not read it, and says what to store with the turn.
func (t *Turn) loreForCommit(ctx context.Context) (*store.SceneLore, *loreTrace, error) {
	c := t.Lore(ctx)
	if c == nil {
		return nil, nil, nil
	}
	tr := &loreTrace{Scene: c.Scene, Prepared: t.lorePrepared, Turn: t.turnLore, KeywordState: t.keywordState, Pending: c.Pending}
	text := map[string]string{}
	for _, ps := range [][]lore.Passage{c.Atmosphere, c.Discoverable, c.ThreadConnections} {
		for _, p := range ps {
			tr.Passages = append(tr.Passages, p.ID)
			text[p.ID] = p.Text
		}
	}
	for _, b := range c.NPCBriefings {
		for _, p := range b.Passages {
			tr.Passages = append(tr.Passages, p.ID)
			text[p.ID] = p.Text
		}
	}
	offered := tr.Passages
	if tl := t.turnLore; tl != nil {
		for _, p := range tl.Keyword {
			text[p.ID] = p.Text
		}
		offered = tl.Kept
	}
	for _, id := range offered {
		if terms := t.s.keyTerms(text[id]); len(terms) > 0 {
			if tr.Terms == nil {
				tr.Terms = map[string][]string{}
			}
			tr.Terms[id] = terms
		}
	}
	if !t.lorePrepared {
		return nil, tr, nil
	}
	tr.Cuts = c.Cuts
	b, err := json.Marshal(c)
	if err != nil {
		return nil, nil, fmt.Errorf("encode scene lore: %w", err)
	}
	return &store.SceneLore{Scene: c.Scene, Lore: b}, tr, nil
}

// BeginEpisode starts a game night: an episode left open by a crash is
// closed first, the campaign-level lore is prepared, and the recap of the
// last episode ("previously on") is kept with the new one.
func (s *Session) BeginEpisode(ctx context.Context) (*store.Episode, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	eps, err := s.st.Episodes(ctx, s.meta.ID)
	if err != nil {
		return nil, fmt.Errorf("begin episode: %w", err)
	}
	if n := len(eps); n > 0 && eps[n-1].Open() {
		ended, err := s.endEpisode(ctx, eps[n-1])
		if err != nil {
			return nil, err
		}
		eps[n-1] = *ended
	}
	e := &store.Episode{SessionID: s.meta.ID, BranchID: s.branch.ID, FirstTurn: s.head + 1}
	if n := len(eps); n > 0 && eps[n-1].Summary != "" {
		e.Recap = eps[n-1].Summary
	}
	if k := s.opts.Lore; k != nil {
		ps, cuts, err := k.CampaignLore(ctx, s.w, s.cfg.Description)
		if err != nil {
			s.opts.Logger.Warn("campaign lore unavailable", "err", err)
		} else if e.Lore, err = json.Marshal(struct {
			Passages []lore.Passage `json:"passages"`
			Cuts     []lore.Cut     `json:"cuts,omitempty"`
		}{ps, cuts}); err != nil {
			return nil, fmt.Errorf("begin episode: %w", err)
		}
	}
	if err := s.st.StartEpisode(ctx, e); err != nil {
		return nil, fmt.Errorf("begin episode: %w", err)
	}
	return e, nil
}

// EndEpisode closes the open episode with a summary of its turns, which
// the next episode shows as its recap.
func (s *Session) EndEpisode(ctx context.Context) (*store.Episode, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	eps, err := s.st.Episodes(ctx, s.meta.ID)
	if err != nil {
		return nil, fmt.Errorf("end episode: %w", err)
	}
	if len(eps) == 0 || !eps[len(eps)-1].Open() {
		return nil, fmt.Errorf("end episode: no episode is open: %w", store.ErrNotFound)
	}
	return s.endEpisode(ctx, eps[len(eps)-1])
}

func (s *Session) endEpisode(ctx context.Context, e store.Episode) (*store.Episode, error) {
	last := s.head
	var summary string
	var moments []lore.Moment
	if last >= e.FirstTurn {
		turns, err := s.st.Turns(ctx, s.branch.ID, e.FirstTurn, last)
		if err != nil {
			return nil, fmt.Errorf("end episode: %w", err)
		}
		summary = Recap(s.w, turns, 8)
		for _, t := range turns {
			if eventful(t.Effects) {
				moments = append(moments, lore.Moment{Turn: t.Number, Text: firstSentence(t.Narrative)})
			}
		}
	}
	ended, err := s.st.EndEpisode(ctx, s.meta.ID, last, summary)
	if err != nil {
		return nil, fmt.Errorf("end episode: %w", err)
	}
	if k := s.opts.Lore; k != nil {
		if err := k.RecordEpisode(ctx, s.meta.ID, ended.Number, summary, moments); err != nil {
			s.opts.Logger.Warn("episode not added to the history corpus", "err", err)
		}
	}
	return ended, nil
}

// eventful reports whether effects hold more than the passing of time.
func eventful(raw json.RawMessage) bool {
	var es []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &es) != nil {
		return false
	}
	for _, e := range es {
		switch e.Type {
		case "turn_began", "time_advanced", "entities_mentioned", "combat_round", "":
		default:
			return true
		}
	}
	return false
}

func firstSentence(s string) string {
	var body []string
	for _, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); !strings.HasPrefix(t, "==") && !strings.HasPrefix(t, "#") {
			body = append(body, t)
		}
	}
	s = strings.Join(strings.Fields(strings.Join(body, " ")), " ")
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (i+1 == len(s) || s[i+1] == ' ') && i > 10 {
			if strings.Count(s[:i+1], `"`)%2 == 1 { // inside a quotation: end with it
				if j := strings.IndexByte(s[i:], '"'); j >= 0 {
					return s[:i+j+1]
				}
			}
			return s[:i+1]
		}
	}
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// maxKeptTerms bounds the session's kept key terms: a scene offers a few
// dozen passages.
const maxKeptTerms = 512

// keyTerms are the six key terms of a passage's text, kept from the last
// time it was offered. The slice is shared: callers only read it.
func (s *Session) keyTerms(text string) []string {
	s.termsMu.Lock()
	defer s.termsMu.Unlock()
	if terms, ok := s.terms[text]; ok {
		return terms
	}
	terms := keyTerms(text, 6)
	if s.terms == nil || len(s.terms) >= maxKeptTerms {
		s.terms = map[string][]string{}
	}
	s.terms[text] = terms
	return terms
}

// keyTerms are up to n words that identify text: names (capitalised
// words not opening a sentence) first, then the longest other words;
// lower-cased, without common words. A passage whose key terms the story
// never uses was probably not relevant to it.
func keyTerms(text string, n int) []string {
	type cand struct {
		w    string
		name bool
	}
	var cs []cand
	seen := map[string]int{} // index in cs
	start := true
	for _, f := range strings.Fields(text) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		lw := strings.ToLower(w)
		first, _ := utf8.DecodeRuneInString(w)
		name := !start && w != "" && unicode.IsUpper(first)
		start = strings.ContainsAny(f[len(f)-1:], ".!?:")
		if utf8.RuneCountInString(lw) < 4 || stopWords[lw] {
			continue
		}
		if i, ok := seen[lw]; ok {
			cs[i].name = cs[i].name || name // a name that first opened a sentence
			continue
		}
		seen[lw] = len(cs)
		cs = append(cs, cand{lw, name})
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		if a.name != b.name {
			if a.name {
				return -1
			}
			return 1
		}
		return utf8.RuneCountInString(b.w) - utf8.RuneCountInString(a.w)
	})
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.w)
	}
	return out
}

// stopWords are words too common to identify a passage; written once
// here and only read.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`that this with from have were they their there them then than what when where which while
		who whom whose will would could should about after before into over under upon your yours been being does done
		each every some many much more most other such only also just very even still here these those because through
		against between among always never often ever again once both either neither nor shall might must itself`) {
		stopWords[w] = true
	}
}
