package lorebook

import (
	"regexp"
	"strconv"
	"sync/atomic"

	"github.com/hearth-rpg/hearth/tokens"
)

// Format names the shape a book was imported from.
type Format string

const (
	SillyTavern   Format = "sillytavern"    // a World Info file: {"entries": {"0": {...}}}
	CardV2        Format = "chara_card_v2"  // data.character_book of a V2 card
	CardV3        Format = "chara_card_v3"  // data.character_book of a V3 card
	LorebookV3    Format = "lorebook_v3"    // a standalone V3 lorebook: {"spec": "lorebook_v3", "data": {...}}
	CharacterBook Format = "character_book" // a bare character_book object (entries as an array)
)

// Book is an imported lorebook. It does not change after Parse, so one Book
// may serve any number of concurrent Activate calls, each with its own State.
type Book struct {
	// Name identifies the book in timed-effect state keys and passage ids.
	// Parse fills it from the file when the file names itself; set it to
	// something stable (a file name, a pack id) before the first Activate.
	Name   string
	Format Format

	// Book-level settings a character_book may carry. Zero means unset; an
	// Input value takes precedence over them.
	ScanDepth   int
	TokenBudget int
	// NoRecursion is set when the card says recursive_scanning: false, which
	// the V3 spec makes binding: entries never activate each other.
	NoRecursion bool

	Entries  []Entry   // ascending UID; read-only: keys are compiled at Parse
	Warnings []Warning // problems that did not stop the import

	order  []int // indexes into Entries in scan order: Order descending, stable
	byUID  map[int]int
	tokens *tokenCache
}

// tokenCache remembers entries' token counts for the first Counter used
// with the book (in Hearth there is one, cl100k); counting is otherwise the
// costliest part of an activation. It is safe for concurrent use.
type tokenCache struct {
	counter atomic.Pointer[tokens.Counter]
	counts  []atomic.Int32 // count + 1; 0 when not yet counted
}

// count returns the tokens in entry i's content.
func (b *Book) count(c *tokens.Counter, i int) int {
	tc := b.tokens
	if tc == nil || (!tc.counter.CompareAndSwap(nil, c) && tc.counter.Load() != c) {
		return c.Count(b.Entries[i].Content)
	}
	if n := tc.counts[i].Load(); n > 0 {
		return int(n) - 1
	}
	n := c.Count(b.Entries[i].Content)
	tc.counts[i].Store(int32(min(n, 1<<30)) + 1)
	return n
}

// maxWarnings bounds Book.Warnings, whatever the input.
const maxWarnings = 1000

func (b *Book) warn(uid int, msg string) {
	switch {
	case len(b.Warnings) < maxWarnings:
		b.Warnings = append(b.Warnings, Warning{UID: uid, Message: msg})
	case len(b.Warnings) == maxWarnings:
		b.Warnings = append(b.Warnings, Warning{UID: uid, Message: "more warnings left out"})
	}
}

// Warning is a problem with one entry that Parse worked around.
type Warning struct {
	UID     int
	Message string
}

func (w Warning) String() string { return "entry " + strconv.Itoa(w.UID) + ": " + w.Message }

// Logic is how an entry's secondary keys combine with its primary match.
type Logic int

// The values SillyTavern stores in selectiveLogic.
const (
	AndAny Logic = 0 // at least one secondary key is present
	NotAll Logic = 1 // at least one secondary key is absent
	NotAny Logic = 2 // no secondary key is present
	AndAll Logic = 3 // every secondary key is present
)

func (l Logic) String() string {
	switch l {
	case AndAny:
		return "AND ANY"
	case NotAll:
		return "NOT ALL"
	case NotAny:
		return "NOT ANY"
	case AndAll:
		return "AND ALL"
	}
	return "logic(" + strconv.Itoa(int(l)) + ")"
}

// Position is where SillyTavern would insert an entry's content. Hearth
// passes it through for the context builder; activation does not use it.
type Position int

// SillyTavern's world_info_position values.
const (
	BeforeChar Position = iota // before the character definitions
	AfterChar                  // after the character definitions
	ANTop                      // top of the author's note
	ANBottom                   // bottom of the author's note
	AtDepth                    // inside the chat, Depth messages from the end
	EMTop                      // before the example messages
	EMBottom                   // after the example messages
	Outlet                     // only where a prompt names its outlet
)

var positionNames = [...]string{"before_char", "after_char", "an_top", "an_bottom", "at_depth", "em_top", "em_bottom", "outlet"}

func (p Position) String() string {
	if p >= 0 && int(p) < len(positionNames) {
		return positionNames[p]
	}
	return "position(" + strconv.Itoa(int(p)) + ")"
}

// Role is the chat role of an AtDepth insertion.
type Role int

const (
	System Role = iota
	User
	Assistant
)

func (r Role) String() string {
	switch r {
	case System:
		return "system"
	case User:
		return "user"
	case Assistant:
		return "assistant"
	}
	return "role(" + strconv.Itoa(int(r)) + ")"
}

// Entry is one piece of lore and the rules that activate it, with
// SillyTavern's field meanings. Optional overrides are nil when the entry
// follows the Input's setting.
type Entry struct {
	UID     int
	Comment string // the title or memo; never sent to a model
	Content string // the text to insert, with @@decorator lines removed

	Keys          []string // primary keys as written; "/pattern/flags" is a regex
	SecondaryKeys []string
	Selective     bool  // secondary keys apply only when set
	Logic         Logic // how secondary keys combine
	Constant      bool  // active whatever the keys say
	Disabled      bool
	UseRegex      bool // V3 use_regex: keys are bare regular expressions

	Order    int // insertion order: higher is more important and sits later in the prompt
	Priority int // V2/V3 priority, kept for export; SillyTavern ranks by Order only
	Position Position
	Depth    int // for AtDepth
	Role     Role

	ExcludeRecursion    bool // never activated by other entries' content
	PreventRecursion    bool // its content does not activate other entries
	DelayUntilRecursion int  // activatable only in recursion passes, from this level on; 0 = not delayed

	Probability    float64 // chance in percent that an activation sticks
	UseProbability bool

	Group           string // inclusion groups, comma separated
	GroupOverride   bool   // wins its group by Order instead of by weight
	GroupWeight     float64
	UseGroupScoring *bool

	ScanDepth       *int
	CaseSensitive   *bool
	MatchWholeWords *bool

	Sticky   int // stays active this many turns after activating
	Cooldown int // cannot activate for this many turns after activating
	Delay    int // cannot activate before this turn

	IgnoreBudget bool // included even when the token budget is spent

	Decorators []string // the @@decorator lines Hearth acted on, as written

	primary   []key
	secondary []key
	groups    []string
	hash      string
	activate  bool // @@activate
	dontAct   bool // @@dont_activate
	onlyAfter int  // @@activate_only_after
	onlyEvery int  // @@activate_only_every
}

// key is one compiled activation key.
type key struct {
	text  string         // as written, trimmed
	lower string         // text lowercased, for case-insensitive plain matching
	multi bool           // more than one word: whole-word matching falls back to substring
	re    *regexp.Regexp // regex key, flags applied
	fold  *regexp.Regexp // a bare use_regex pattern, case-insensitive variant
	dead  bool           // a regex RE2 cannot run: never matches

	need, foldNeed []literal // what every match of re, fold contains
}
