package access

import (
	"fmt"
	"strings"
)

// Level is a visibility level. The zero value is Player, the most
// restrictive reader and the most open content, so an unset level never
// hides content from the table by accident nor leaks GM notes upward.
type Level int

// The levels, lowest first. The numbers are part of stored data and of the
// HTTP API; do not renumber them.
const (
	Player    Level = 1 // anyone at the table
	Trusted   Level = 2 // players the GM trusts with more
	Assistant Level = 3 // co-GMs and assistants
	GM        Level = 4 // the game master alone
)

var names = map[Level]string{
	Player:    "player",
	Trusted:   "trusted",
	Assistant: "assistant",
	GM:        "gm_only",
}

// CanSee reports whether a reader at level l may see content at level c.
// Content with an unset level (0) counts as Player content.
func (l Level) CanSee(c Level) bool {
	if c == 0 {
		c = Player
	}
	return c <= l.normal()
}

func (l Level) normal() Level {
	if l == 0 {
		return Player
	}
	return l
}

// String returns the stable name: player, trusted, assistant or gm_only.
func (l Level) String() string {
	if n, ok := names[l.normal()]; ok {
		return n
	}
	return fmt.Sprintf("level(%d)", int(l))
}

// Parse accepts the stable names, "gm" as a synonym of gm_only, and the
// numbers 1 to 4.
func Parse(s string) (Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "player", "1", "":
		return Player, nil
	case "trusted", "2":
		return Trusted, nil
	case "assistant", "3":
		return Assistant, nil
	case "gm_only", "gm", "gm-only", "4", "secret":
		return GM, nil
	}
	return 0, fmt.Errorf("unknown access level %q: use player, trusted, assistant or gm_only", s)
}

// MarshalText encodes the level as its stable name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText accepts what Parse accepts.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}
