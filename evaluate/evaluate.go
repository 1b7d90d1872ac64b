package evaluate

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/world"
)

// Input is what a session recorded: its turns in order, the flags on
// them and, optionally, what the world knows beyond the turns.
type Input struct {
	Session string
	Title   string
	Turns   []game.TurnRecord
	Flags   []game.Flag
	// Facts are facts established outside the turns' effects (the
	// campaign's), each from its Turn on. Optional.
	Facts []world.Fact
	// Names maps character ids to names, for the dead-character check;
	// without it names come from the turns' npc_created effects, then the
	// id itself.
	Names map[string]string
}

// Report is the evaluation of one session. Rates are null when nothing
// was there to count.
type Report struct {
	Session string `json:"session,omitempty"`
	Title   string `json:"title,omitempty"`
	// Turns are the committed turns; Inputs add the input answered
	// without a turn.
	Turns          int             `json:"turns"`
	Inputs         int             `json:"inputs"`
	Contradictions []Contradiction `json:"contradictions"`
	InvalidActions InvalidActions  `json:"invalid_actions"`
	Clarification  Clarification   `json:"clarification"`
	ResponseWords  Dist            `json:"response_words"`
	Lore           Lore            `json:"lore"`
	Callbacks      Rate            `json:"callbacks"`
	Passes         []Pass          `json:"passes"`
	Flags          []FlaggedTurn   `json:"flags"`
}

// Rate is N of Of, with Share = N/Of (null when Of is 0).
type Rate struct {
	N     int      `json:"n"`
	Of    int      `json:"of"`
	Share *float64 `json:"share"`
}

func rate(n, of int) Rate {
	r := Rate{N: n, Of: of}
	if of > 0 {
		s := float64(n) / float64(of)
		r.Share = &s
	}
	return r
}

// Dist summarises a list of counts (nearest-rank percentiles).
type Dist struct {
	N     int     `json:"n"`
	Total int64   `json:"total"`
	Mean  float64 `json:"mean"`
	P50   int64   `json:"p50"`
	P99   int64   `json:"p99"`
	Max   int64   `json:"max"`
}

func dist(xs []int64) Dist {
	d := Dist{N: len(xs)}
	if len(xs) == 0 {
		return d
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	for _, x := range s {
		d.Total += x
	}
	rank := func(p float64) int64 { return s[max(0, int(math.Ceil(p*float64(len(s))))-1)] }
	d.Mean = math.Round(float64(d.Total)/float64(len(s))*10) / 10
	d.P50, d.P99, d.Max = rank(0.50), rank(0.99), s[len(s)-1]
	return d
}

// Contradiction is a sentence of a turn's narration that goes against
// something established earlier.
type Contradiction struct {
	Turn int `json:"turn"`
	// Kind is "fact" (a recorded fact negated) or "dead" (a dead or
	// removed character speaking or acting).
	Kind     string `json:"kind"`
	Against  string `json:"against"` // the fact's text, or the character's name
	Since    int    `json:"since"`   // the turn that established it
	Sentence string `json:"sentence"`
}

// InvalidActions counts rejected actions and how they were narrated.
type InvalidActions struct {
	// Rejected are committed turns whose intents the rules rejected;
	// Accepted those of them narrated with no sign of the refusal.
	Rejected      int      `json:"rejected"`
	Accepted      int      `json:"accepted"`
	Rate          *float64 `json:"rate"`
	AcceptedTurns []int    `json:"accepted_turns,omitempty"`
	// Refused is input the rules refused before any turn was taken.
	Refused int `json:"refused_before_a_turn"`
}

// Clarification is how often the game asked instead of playing.
type Clarification struct {
	Rate
	// Why counts them by cause: confirmation, not_understood,
	// awaiting_clarification, awaiting_confirmation, validator.
	Why map[string]int `json:"why,omitempty"`
}

// Lore measures the lore the turns were given.
type Lore struct {
	Turns           int  `json:"turns"` // turns that recorded lore
	PassagesPerTurn Dist `json:"passages_per_turn"`
	Relevance       Rate `json:"relevance"` // of passages with key terms recorded
	CacheHits       Rate `json:"scene_cache_hits"`
	Unjudged        int  `json:"unjudged,omitempty"` // passages recorded without key terms
	// Irrelevant are the passages offered whose key terms no turn they
	// were offered to used, in the order first offered.
	Irrelevant []string `json:"irrelevant,omitempty"`
}

// Pass is the model calls of one pass name.
type Pass struct {
	Name             string `json:"name"`
	Calls            int    `json:"calls"`
	Errors           int    `json:"errors,omitempty"`
	Fallbacks        int    `json:"fallbacks,omitempty"`
	PromptTokens     Dist   `json:"prompt_tokens"`
	CompletionTokens Dist   `json:"completion_tokens"`
	Millis           Dist   `json:"ms"`
}

// FlaggedTurn is a player's flag with the turn it is about.
type FlaggedTurn struct {
	game.Flag
	Input     string `json:"input"`
	Narrative string `json:"narrative"`
}

// record is the part of a turn's passes evaluation reads.
type record struct {
	Rejection *struct {
		Reason string `json:"reason"`
	} `json:"rejection"`
	Calls []struct {
		Pass     string          `json:"pass"`
		Usage    llm.Usage       `json:"usage"`
		Millis   int64           `json:"ms"`
		Error    string          `json:"error"`
		Fallback string          `json:"fallback"`
		Output   json.RawMessage `json:"output"`
	} `json:"calls"`
	Lore *struct {
		Prepared bool     `json:"prepared"`
		Passages []string `json:"passages"`
		Turn     *struct {
			Kept []string `json:"kept"`
		} `json:"turn"`
		Terms map[string][]string `json:"terms"`
	} `json:"lore"`
	// Awaiting is what the turn ended waiting for, when the pipeline
	// records it: a kind, or an object with one.
	Awaiting json.RawMessage `json:"awaiting"`
}

// Evaluate measures in.
func Evaluate(in Input) *Report {
	r := &Report{Session: in.Session, Title: in.Title, Turns: len(in.Turns), Inputs: len(in.Turns),
		Contradictions: []Contradiction{}, Passes: []Pass{}, Flags: []FlaggedTurn{}}
	r.Clarification.Why = map[string]int{}
	facts := map[string]world.Fact{}
	for _, f := range in.Facts {
		facts[f.ID] = f
	}
	names := map[string]string{}
	for id, n := range in.Names {
		names[id] = n
	}
	gone := map[string]int{} // dead or removed characters, since the turn
	var words []int64
	var perTurn []int64
	type calls struct {
		Pass
		prompt, completion, ms []int64
	}
	byPass := map[string]*calls{}
	var clar int
	var offeredEver []string
	relevantEver := map[string]bool{}
	for _, t := range in.Turns {
		var es world.Effects
		_ = json.Unmarshal(t.Effects, &es) // a record it cannot read adds nothing
		var rec record
		_ = json.Unmarshal(t.Passes, &rec)
		sentences := split(t.Narrative)

		// Contradictions, against what was established before this turn.
		for _, id := range sortedKeys(facts) {
			f := facts[id]
			if f.Turn >= t.Number {
				continue
			}
			if s, ok := negates(f.Text, sentences); ok {
				r.Contradictions = append(r.Contradictions, Contradiction{Turn: t.Number, Kind: "fact", Against: f.Text, Since: f.Turn, Sentence: s})
			}
		}
		for _, id := range sortedKeys(gone) {
			if s, ok := acts(nameOf(id, names), sentences); ok {
				r.Contradictions = append(r.Contradictions, Contradiction{Turn: t.Number, Kind: "dead", Against: nameOf(id, names), Since: gone[id], Sentence: s})
			}
		}
		for _, e := range es {
			switch e := e.(type) {
			case world.FactRecorded:
				f := e.Fact
				f.Turn = t.Number
				facts[f.ID] = f
			case world.NPCCreated:
				if _, ok := names[e.NPC.ID]; !ok && e.NPC.Name != "" {
					names[e.NPC.ID] = e.NPC.Name
				}
			case world.ConditionApplied:
				if e.Condition == "dead" {
					gone[e.Target] = t.Number
				}
			case world.ConditionRemoved:
				if e.Condition == "dead" {
					delete(gone, e.Target)
				}
			case world.NPCRemoved:
				gone[e.ID] = t.Number
			}
		}

		// Input answered without a turn, kept as notes on this one.
		for _, n := range world.Of[world.NoteRecorded](es) {
			if n.Note.Kind != game.NoteRefused {
				continue
			}
			r.Inputs++
			_, how, _, ok := game.ReadRefusal(n.Note.Text)
			switch {
			case !ok:
			case how == game.Asked:
				clar++
				r.Clarification.Why["confirmation"]++
			case how == game.NotPlayed:
				clar++
				r.Clarification.Why["not_understood"]++
			case how == game.Refused:
				r.InvalidActions.Refused++
			}
		}
		if why := asked(rec); why != "" {
			clar++
			r.Clarification.Why[why]++
		}

		// Invalid actions narrated as done.
		if rec.Rejection != nil {
			r.InvalidActions.Rejected++
			if !acknowledges(t.Narrative) {
				r.InvalidActions.Accepted++
				r.InvalidActions.AcceptedTurns = append(r.InvalidActions.AcceptedTurns, t.Number)
			}
		}

		words = append(words, int64(len(strings.Fields(t.Narrative))))

		// Lore.
		if l := rec.Lore; l != nil {
			r.Lore.Turns++
			if !l.Prepared {
				r.Lore.CacheHits.N++
			}
			offered := l.Passages
			if l.Turn != nil {
				offered = l.Turn.Kept
			}
			perTurn = append(perTurn, int64(len(offered)))
			seen := strings.ToLower(t.Input + "\n" + t.Narrative)
			for _, id := range offered {
				terms := l.Terms[id]
				if len(terms) == 0 {
					r.Lore.Unjudged++
					continue
				}
				r.Lore.Relevance.Of++
				if !slices.Contains(offeredEver, id) {
					offeredEver = append(offeredEver, id)
				}
				if slices.ContainsFunc(terms, func(w string) bool { return strings.Contains(seen, w) }) {
					r.Lore.Relevance.N++
					relevantEver[id] = true
				}
			}
		}

		// Model calls.
		for _, c := range rec.Calls {
			if c.Pass == "" {
				continue
			}
			p := byPass[c.Pass]
			if p == nil {
				p = &calls{Pass: Pass{Name: c.Pass}}
				byPass[c.Pass] = p
			}
			p.Calls++
			if c.Error != "" {
				p.Errors++
			}
			if c.Fallback != "" {
				p.Fallbacks++
			}
			p.prompt = append(p.prompt, int64(c.Usage.PromptTokens))
			p.completion = append(p.completion, int64(c.Usage.CompletionTokens))
			p.ms = append(p.ms, c.Millis)
		}
	}
	r.InvalidActions.Rate = rate(r.InvalidActions.Accepted, r.InvalidActions.Rejected).Share
	r.Clarification.Rate = rate(clar, r.Inputs)
	r.ResponseWords = dist(words)
	r.Lore.PassagesPerTurn = dist(perTurn)
	r.Lore.Relevance = rate(r.Lore.Relevance.N, r.Lore.Relevance.Of)
	r.Lore.CacheHits = rate(r.Lore.CacheHits.N, r.Lore.Turns)
	for _, id := range offeredEver {
		if !relevantEver[id] {
			r.Lore.Irrelevant = append(r.Lore.Irrelevant, id)
		}
	}
	r.Callbacks = rate(game.CallbackRate(in.Turns))
	for _, name := range sortedKeys(byPass) {
		p := byPass[name]
		p.PromptTokens, p.CompletionTokens, p.Millis = dist(p.prompt), dist(p.completion), dist(p.ms)
		r.Passes = append(r.Passes, p.Pass)
	}
	byTurn := map[int]game.TurnRecord{}
	for _, t := range in.Turns {
		byTurn[t.Number] = t
	}
	for _, f := range in.Flags {
		t := byTurn[f.Turn]
		r.Flags = append(r.Flags, FlaggedTurn{Flag: f, Input: t.Input, Narrative: t.Narrative})
	}
	slices.SortStableFunc(r.Flags, func(a, b FlaggedTurn) int {
		return cmp.Or(cmp.Compare(a.Turn, b.Turn), a.At.Compare(b.At))
	})
	return r
}

// asked is why a committed turn ended asking the player instead of
// playing, or "".
func asked(rec record) string {
	var kind string
	if json.Unmarshal(rec.Awaiting, &kind) != nil {
		var k struct {
			Kind string `json:"kind"`
		}
		_ = json.Unmarshal(rec.Awaiting, &k)
		kind = k.Kind
	}
	switch kind {
	case "clarification", "confirmation":
		return "awaiting_" + kind
	}
	for _, c := range rec.Calls {
		if c.Error != "" || len(c.Output) == 0 {
			continue
		}
		switch c.Pass {
		case "interpreter":
			var v struct {
				Intents []json.RawMessage `json:"intents"`
				Query   string            `json:"query"`
				Reply   string            `json:"reply"`
				Confirm string            `json:"confirm"`
			}
			if json.Unmarshal(c.Output, &v) != nil {
				continue
			}
			switch {
			case v.Confirm != "":
				return "confirmation"
			case len(v.Intents) == 0 && v.Query == "" && v.Reply != "":
				return "not_understood"
			}
		case "validator":
			var v struct {
				Clarification json.RawMessage `json:"clarification"`
			}
			if json.Unmarshal(c.Output, &v) == nil && truthy(v.Clarification) {
				return "validator"
			}
		}
	}
	return ""
}

// truthy reports whether a JSON value says yes: true, a non-empty
// string, a non-empty object.
func truthy(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	switch s {
	case "", "null", "false", `""`, "{}", "[]", "0":
		return false
	}
	return true
}

// split cuts narration into sentences.
func split(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if s := strings.TrimSpace(b.String()); s != "" {
			out = append(out, s)
		}
		b.Reset()
	}
	rs := []rune(text)
	for i, c := range rs {
		if c == '\n' {
			flush()
			continue
		}
		b.WriteRune(c)
		if (c == '.' || c == '!' || c == '?') && (i+1 == len(rs) || unicode.IsSpace(rs[i+1]) || rs[i+1] == '"' || rs[i+1] == '”') {
			flush()
		}
	}
	flush()
	return out
}

// tokens are the lower-cased words of s (apostrophes kept, so "isn't"
// stays one word).
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(strings.ReplaceAll(s, "’", "'")), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

var negations = set(`not no never none nobody nothing neither nor cannot without nowhere`)

func negated(ws []string) bool {
	for _, w := range ws {
		if negations[w] || strings.HasSuffix(w, "n't") {
			return true
		}
	}
	return false
}

// content are the words of ws that carry meaning.
func content(ws []string) map[string]bool {
	out := map[string]bool{}
	for _, w := range ws {
		w = strings.TrimSuffix(w, "'s")
		if len([]rune(w)) >= 3 && !common[w] && !negations[w] && !strings.HasSuffix(w, "n't") {
			out[w] = true
		}
	}
	return out
}

// negates finds a sentence that says fact's words with the opposite
// polarity.
func negates(fact string, sentences []string) (string, bool) {
	fw := tokens(fact)
	fc := content(fw)
	need := max(2, int(math.Ceil(float64(len(fc))*2/3)))
	if len(fc) < 2 {
		return "", false
	}
	fneg := negated(fw)
	for _, s := range sentences {
		sw := tokens(s)
		shared := 0
		for w := range content(sw) {
			if fc[w] {
				shared++
			}
		}
		if shared >= need && negated(sw) != fneg {
			return s, true
		}
	}
	return "", false
}

var (
	doing  = set(`says said asks asked replies replied answers answered nods nodded smiles smiled laughs laughed grins grinned shrugs shrugged walks walked steps stepped shouts shouted whispers whispered greets greeted hands handed waves waved turns turned attacks attacked offers offered tells told speaks spoke looks looked`)
	beyond = set(`dead death died corpse body bodies grave ghost spirit remains lifeless memory remember remembers remembered recall recalls mourn mourns buried killed slain late`)
)

// acts finds a sentence where name speaks or acts, unless it speaks of
// death or memory.
func acts(name string, sentences []string) (string, bool) {
	nw := tokens(name)
	if len(nw) == 0 {
		return "", false
	}
	first := nw[0]
	if (first == "the" || first == "a" || first == "an") && len(nw) > 1 {
		first = nw[1]
	}
	if len([]rune(first)) < 3 {
		return "", false
	}
	for _, s := range sentences {
		sw := tokens(s)
		if slices.ContainsFunc(sw, func(w string) bool { return beyond[w] }) {
			continue
		}
		for i, w := range sw {
			if strings.TrimSuffix(w, "'s") != first {
				continue
			}
			// "Mira says", "Mira Vell nods": the verb within two words.
			for _, v := range sw[i+1 : min(len(sw), i+3)] {
				if doing[v] {
					return s, true
				}
			}
		}
	}
	return "", false
}

var refusal = set(`not no never nothing cannot unable fail fails failed refuse refuses refused impossible instead blocked locked nowhere won't can't doesn't don't isn't aren't wasn't couldn't denied deny denies vain`)

// acknowledges reports whether narration shows that an action did not
// happen as asked.
func acknowledges(narration string) bool {
	for _, w := range tokens(narration) {
		if refusal[w] || strings.HasSuffix(w, "n't") {
			return true
		}
	}
	return false
}

var common = set(`the and but for are was were has had have with that this from into onto over under upon you your his her hers its their them they she him who whom what when where which while will would could should can may might must shall there here then than now also just very still even once each every some any all both more most other such only own same too out off yet ever about after before again against between through during above below until because being been does did doing done one two`)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

func nameOf(id string, names map[string]string) string {
	if n := names[id]; n != "" {
		return n
	}
	return strings.ReplaceAll(id, "_", " ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// excerpt shortens s to about n runes, on one line.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
