package lorebook

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/tokens"
)

const (
	DefaultScanDepth    = 2    // messages scanned when neither Input nor Book says (SillyTavern's default)
	DefaultMaxRecursion = 3    // recursion passes after the first scan when Input does not say
	MaxScanDepth        = 1000 // SillyTavern's MAX_SCAN_DEPTH
)

// Input is what one activation looks at.
type Input struct {
	// Messages is the scan buffer, oldest first, newest last. Prefix each
	// with its speaker ("Mira: …") if names should be able to match.
	Messages []string
	// ScanDepth is how many of the newest messages are scanned; 0 means the
	// book's scan_depth, else DefaultScanDepth. Entries may override it.
	ScanDepth int
	// Budget caps the included entries' tokens; 0 means the book's
	// token_budget, else no cap.
	Budget int
	// Counter counts tokens; nil estimates one token per four bytes.
	Counter *tokens.Counter
	// Seed decides everything random (probability rolls, group draws),
	// together with Turn, so the same Seed and Turn decide the same way.
	Seed uint64
	// Turn is the clock for timed effects, SillyTavern's chat length: an
	// effect of N started at turn t covers turns t to t+N-1, so an entry
	// with sticky 3 activated at turn 10 stays in at turns 11 and 12, and
	// delay N holds an entry back while Turn < N. Turn must grow between
	// activations that count as time passing; repeating a turn (a retry)
	// undoes the effects that turn started.
	Turn int
	// MaxRecursion caps recursion passes after the first scan; 0 means
	// DefaultMaxRecursion and a negative value turns recursion off.
	MaxRecursion int
	// Defaults for entries that do not set their own.
	CaseSensitive   bool
	MatchWholeWords bool
	GroupScoring    bool
}

// Activation is the outcome of one activation: what goes into the prompt
// and what matched but was left out, with why, for an explain trace.
type Activation struct {
	Book     string  `json:"book"`
	Included []Match `json:"included"` // prompt order: ascending Order
	Cut      []Cut   `json:"cut,omitempty"`
	Tokens   int     `json:"tokens"` // of the included entries
	Budget   int     `json:"budget"` // 0: no cap
	Passes   int     `json:"passes"` // scan passes run, the first included
}

// Reason says how an included entry matched.
type Reason string

const (
	ByKey       Reason = "key"       // a primary key (and its secondary keys) matched
	ByConstant  Reason = "constant"  // constant entry
	BySticky    Reason = "sticky"    // still sticky from an earlier turn
	ByDecorator Reason = "decorator" // @@activate
)

// Match is an included entry.
type Match struct {
	UID      int      `json:"uid"`
	Comment  string   `json:"comment,omitempty"`
	Content  string   `json:"content"`
	Tokens   int      `json:"tokens"`
	Order    int      `json:"order"`
	Position Position `json:"position"`
	Depth    int      `json:"depth,omitempty"`
	Role     Role     `json:"role,omitempty"`

	Reason    Reason `json:"reason"`
	Key       string `json:"key,omitempty"`       // the primary key that matched
	Secondary string `json:"secondary,omitempty"` // the secondary key that decided AND ANY / NOT ALL
	// Level is the scan pass that activated it: 0 scans the messages,
	// n > 0 the messages plus the content of entries from passes before.
	Level int `json:"level"`

	idx int
}

// CutReason says why a matching entry was left out.
type CutReason string

const (
	CutBudget      CutReason = "budget"      // the token budget was spent
	CutGroup       CutReason = "group"       // another entry won its inclusion group
	CutProbability CutReason = "probability" // its probability roll failed
	CutCooldown    CutReason = "cooldown"    // activated too recently
	CutDelay       CutReason = "delay"       // too early in the chat
)

// Cut is an entry that would have been included.
type Cut struct {
	UID     int       `json:"uid"`
	Comment string    `json:"comment,omitempty"`
	Reason  CutReason `json:"reason"`
	Detail  string    `json:"detail"`
	Key     string    `json:"key,omitempty"`
	Level   int       `json:"level"`
}

// Activate scans in.Messages and returns the entries to insert, following
// SillyTavern's checkWorldInfo: keys, secondary logic, scan depth,
// recursion, inclusion groups, probability, timed effects, then the token
// budget. It never fails; a malformed book could not have been parsed.
//
// st carries timed effects between turns and is updated in place; pass nil
// to evaluate without them (sticky and cooldown are then ignored). Activate
// does not modify the Book and is safe to call concurrently with distinct
// States.
func (b *Book) Activate(in Input, st *State) Activation {
	r := newRun(b, in, st)
	r.checkTimed()
	r.scanAll()
	r.setTimed()
	return r.result()
}

// run is the working state of one activation.
type run struct {
	b  *Book
	in Input
	st *State

	depth     int
	budget    int
	maxPasses int
	recursive bool
	count     func(entry int) int

	msgs []string // newest first
	rec  []string // content of activated entries, pass by pass
	hays map[int]*haystack

	sticky, cooling []bool
	done, failed    []bool
	cutAt           map[int]int // entry index → its Cut, so each entry is cut once

	used     int
	overflow bool
	passes   int
	included []Match
	cuts     []Cut
}

func newRun(b *Book, in Input, st *State) *run {
	n := len(b.Entries)
	r := &run{
		b: b, in: in, st: st,
		sticky: make([]bool, n), cooling: make([]bool, n),
		done: make([]bool, n), failed: make([]bool, n),
		cutAt: map[int]int{},
	}
	r.depth = cmp.Or(max(in.ScanDepth, 0), b.ScanDepth, DefaultScanDepth)
	r.depth = min(max(r.depth, 0), MaxScanDepth)
	r.budget = max(cmp.Or(max(in.Budget, 0), b.TokenBudget), 0)
	r.recursive = in.MaxRecursion >= 0 && !b.NoRecursion
	r.maxPasses = 1
	if r.recursive {
		r.maxPasses = 1 + min(cmp.Or(in.MaxRecursion, DefaultMaxRecursion), 1<<20)
	}
	if c := in.Counter; c != nil {
		r.count = func(i int) int { return b.count(c, i) }
	} else {
		r.count = func(i int) int { return (len(b.Entries[i].Content) + 3) / 4 }
	}
	keep := min(len(in.Messages), MaxScanDepth)
	r.msgs = make([]string, 0, keep)
	for i := len(in.Messages) - 1; i >= len(in.Messages)-keep; i-- {
		r.msgs = append(r.msgs, strings.TrimSpace(in.Messages[i]))
	}
	return r
}

// candidate is an entry that matched in the current pass.
type candidate struct {
	idx      int
	rank     int // position in scan order
	reason   Reason
	key, sec string
	sticky   bool
	constant bool
	removed  bool
}

// scanAll runs the passes: the first over the messages, then recursion
// passes while entries activate entries, and passes for each further
// delayUntilRecursion level, as SillyTavern's scan loop does.
func (r *run) scanAll() {
	var levels []int
	for i := range r.b.Entries {
		if l := r.b.Entries[i].DelayUntilRecursion; l > 0 {
			levels = append(levels, l)
		}
	}
	slices.Sort(levels)
	levels = slices.Compact(levels)
	level := 0
	if len(levels) > 0 {
		level, levels = levels[0], levels[1:]
	}
	recursion := false
	for pass := 0; pass < r.maxPasses; pass++ {
		r.passes = pass + 1
		r.hays = map[int]*haystack{}
		cands := r.scan(pass, recursion, level)
		slices.SortStableFunc(cands, func(a, b candidate) int {
			// Sticky entries claim the budget first (SillyTavern), then
			// constants (its documentation), then insertion order.
			if a.sticky != b.sticky {
				return boolRank(a.sticky)
			}
			if a.constant != b.constant {
				return boolRank(a.constant)
			}
			return a.rank - b.rank
		})
		r.filterGroups(cands, pass)
		added := r.admit(cands, pass)

		var forRecursion []string
		for _, i := range added {
			if e := &r.b.Entries[i]; !e.PreventRecursion && e.Content != "" {
				forRecursion = append(forRecursion, e.Content)
			}
		}
		next := r.recursive && !r.overflow && len(forRecursion) > 0
		if !next && len(levels) > 0 {
			next = true
			level, levels = levels[0], levels[1:]
		}
		if !next {
			return
		}
		if len(forRecursion) > 0 {
			r.rec = append(r.rec, strings.Join(forRecursion, "\n"))
		}
		recursion = true
	}
}

func boolRank(first bool) int {
	if first {
		return -1
	}
	return 1
}

// scan finds the entries that match in one pass, in scan order.
func (r *run) scan(pass int, recursion bool, level int) []candidate {
	var out []candidate
	for rank, i := range r.b.order {
		e := &r.b.Entries[i]
		if r.done[i] || r.failed[i] || e.Disabled {
			continue
		}
		sticky := r.sticky[i]
		if e.Delay > 0 && r.in.Turn < e.Delay {
			r.cutIfMatching(i, pass, CutDelay, fmt.Sprintf("delay %d: not before turn %d (now %d)", e.Delay, e.Delay, r.in.Turn))
			continue
		}
		if r.cooling[i] && !sticky {
			r.cutIfMatching(i, pass, CutCooldown, fmt.Sprintf("cooldown %d after its last activation", e.Cooldown))
			continue
		}
		if e.DelayUntilRecursion > 0 && !sticky && (!recursion || e.DelayUntilRecursion > level) {
			continue
		}
		if recursion && r.recursive && e.ExcludeRecursion && !sticky {
			continue
		}
		c := candidate{idx: i, rank: rank, sticky: sticky, constant: e.Constant}
		switch {
		case e.activate:
			c.reason = ByDecorator
		case e.dontAct, !r.turnAllows(e):
			continue
		case e.Constant:
			c.reason = ByConstant
		case sticky:
			c.reason = BySticky
		default:
			k, s, ok := r.matchEntry(e)
			if !ok {
				continue
			}
			c.reason, c.key, c.sec = ByKey, k, s
		}
		out = append(out, c)
	}
	return out
}

// turnAllows applies @@activate_only_after and @@activate_only_every.
func (r *run) turnAllows(e *Entry) bool {
	if e.onlyAfter > 0 && r.in.Turn < e.onlyAfter {
		return false
	}
	return e.onlyEvery <= 0 || r.in.Turn%e.onlyEvery == 0
}

// cutIfMatching records a timed-effect cut, but only for an entry that
// would otherwise have activated: the trace lists what was held back, not
// everything that was asleep.
func (r *run) cutIfMatching(i, pass int, why CutReason, detail string) {
	if _, seen := r.cutAt[i]; seen {
		return
	}
	e := &r.b.Entries[i]
	k := ""
	if !e.activate && !e.Constant {
		if e.dontAct || !r.turnAllows(e) {
			return
		}
		var ok bool
		if k, _, ok = r.matchEntry(e); !ok {
			return
		}
	}
	r.cut(i, pass, why, detail, k)
}

func (r *run) cut(i, pass int, why CutReason, detail, key string) {
	if _, seen := r.cutAt[i]; seen {
		return
	}
	e := &r.b.Entries[i]
	r.cutAt[i] = len(r.cuts)
	r.cuts = append(r.cuts, Cut{UID: e.UID, Comment: e.Comment, Reason: why, Detail: detail, Key: key, Level: pass})
}

// hay returns the text entry e is matched against in this pass.
func (r *run) hay(e *Entry) *haystack {
	depth := r.depth
	if e.ScanDepth != nil {
		depth = *e.ScanDepth
	}
	if h, ok := r.hays[depth]; ok {
		return h
	}
	h := &haystack{}
	if depth > 0 { // SillyTavern scans nothing at depth 0, recursion text included
		var sb strings.Builder
		sb.WriteByte('\x01') // its message separator; a \W for whole-word matching
		for j, m := range r.msgs[:min(depth, len(r.msgs))] {
			if j > 0 {
				sb.WriteString("\n\x01")
			}
			sb.WriteString(m)
		}
		for _, t := range r.rec {
			sb.WriteString("\n\x01")
			sb.WriteString(t)
		}
		h.raw = sb.String()
	}
	r.hays[depth] = h
	return h
}

func (r *run) settings(e *Entry) (caseSensitive, wholeWords bool) {
	caseSensitive, wholeWords = r.in.CaseSensitive, r.in.MatchWholeWords
	if e.CaseSensitive != nil {
		caseSensitive = *e.CaseSensitive
	}
	if e.MatchWholeWords != nil {
		wholeWords = *e.MatchWholeWords
	}
	return caseSensitive, wholeWords
}

// matchEntry applies the primary keys, then the secondary keys with the
// entry's logic, exactly in SillyTavern's order: the first primary key
// that matches is the one reported; AND ANY stops at the first secondary
// key present, NOT ALL at the first one absent.
func (r *run) matchEntry(e *Entry) (primary, secondary string, ok bool) {
	if len(e.primary) == 0 {
		return "", "", false
	}
	h := r.hay(e)
	cs, ww := r.settings(e)
	found := false
	for i := range e.primary {
		if e.primary[i].match(h, cs, ww) {
			primary, found = e.primary[i].text, true
			break
		}
	}
	if !found {
		return "", "", false
	}
	if !e.Selective || len(e.secondary) == 0 {
		return primary, "", true
	}
	anyMatch, allMatch := false, true
	for i := range e.secondary {
		k := &e.secondary[i]
		m := k.match(h, cs, ww)
		anyMatch = anyMatch || m
		allMatch = allMatch && m
		if e.Logic == AndAny && m || e.Logic == NotAll && !m {
			return primary, k.text, true
		}
	}
	switch {
	case e.Logic == NotAny && !anyMatch, e.Logic == AndAll && allMatch:
		return primary, "", true
	}
	return "", "", false
}

// score is SillyTavern's group score: one point per primary key present,
// plus secondary keys under AND ANY (each present) or AND ALL (all, if all
// are present).
func (r *run) score(e *Entry) int {
	if len(e.primary) == 0 {
		return 0
	}
	h := r.hay(e)
	cs, ww := r.settings(e)
	p, s := 0, 0
	for i := range e.primary {
		if e.primary[i].match(h, cs, ww) {
			p++
		}
	}
	for i := range e.secondary {
		if e.secondary[i].match(h, cs, ww) {
			s++
		}
	}
	switch {
	case len(e.secondary) == 0:
		return p
	case e.Logic == AndAny, e.Logic == AndAll && s == len(e.secondary):
		return p + s
	}
	return p
}

// admit rolls probabilities and spends the budget, in candidate order. An
// entry fits while the running total stays within the budget; the first
// one that does not ends the budget for the rest of this activation, as in
// SillyTavern, except for entries that ignore the budget.
func (r *run) admit(cands []candidate, pass int) []int {
	var added []int
	for _, c := range cands {
		if c.removed {
			continue
		}
		i := c.idx
		e := &r.b.Entries[i]
		if r.overflow && !e.IgnoreBudget {
			r.cut(i, pass, CutBudget, fmt.Sprintf("the budget of %d tokens was already spent", r.budget), c.key)
			continue
		}
		if !c.sticky && e.UseProbability && e.Probability < 100 {
			x := roll(r.in.Seed, r.in.Turn, "probability:"+r.b.Name, e.UID) * 100
			if x > e.Probability {
				r.failed[i] = true
				r.cut(i, pass, CutProbability, fmt.Sprintf("rolled %.1f against a %g%% chance", x, e.Probability), c.key)
				continue
			}
		}
		n := r.count(i)
		if !e.IgnoreBudget && r.budget > 0 && r.used+n > r.budget {
			r.overflow = true
			r.cut(i, pass, CutBudget, fmt.Sprintf("needs %d tokens, %d of %d left", n, r.budget-r.used, r.budget), c.key)
			continue
		}
		r.used += n
		r.done[i] = true
		added = append(added, i)
		r.included = append(r.included, Match{
			UID: e.UID, Comment: e.Comment, Content: e.Content, Tokens: n,
			Order: e.Order, Position: e.Position, Depth: e.Depth, Role: e.Role,
			Reason: c.reason, Key: c.key, Secondary: c.sec, Level: pass, idx: i,
		})
	}
	return added
}

func (r *run) result() Activation {
	a := Activation{Book: r.b.Name, Tokens: r.used, Budget: r.budget, Passes: r.passes}
	// SillyTavern sorts the activated entries by order, highest first, and
	// prepends each to the prompt: the prompt runs lowest order first, and
	// among equal orders the later activation comes first.
	a.Included = slices.Clone(r.included)
	slices.SortStableFunc(a.Included, func(x, y Match) int { return y.Order - x.Order })
	slices.Reverse(a.Included)
	for _, c := range r.cuts {
		if i, ok := r.b.byUID[c.UID]; ok && r.done[i] {
			continue // cut in one pass, included in a later one
		}
		a.Cut = append(a.Cut, c)
	}
	return a
}
