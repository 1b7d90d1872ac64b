package lorebook

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/tokens"
)

// book parses a SillyTavern World Info file whose entries are the given
// JSON objects, keyed by their position unless they carry a uid.
func book(t testing.TB, entries ...string) *Book {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(`{"entries":{`)
	for i, e := range entries {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Quote(strconv.Itoa(i)) + ":")
		if !strings.Contains(e, `"uid"`) {
			e = `{"uid":` + strconv.Itoa(i) + "," + strings.TrimPrefix(e, "{")
		}
		sb.WriteString(e)
	}
	sb.WriteString("}}")
	b, err := Parse([]byte(sb.String()))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, sb.String())
	}
	b.Name = "test"
	return b
}

func counter(t testing.TB) *tokens.Counter {
	t.Helper()
	c, err := tokens.CL100K()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// uids lists the included entries' uids, sorted, for order-free checks.
func uids(a Activation) []int {
	var out []int
	for _, m := range a.Included {
		out = append(out, m.UID)
	}
	slices.Sort(out)
	return out
}

// promptOrder lists the included entries' uids in prompt order.
func promptOrder(a Activation) []int {
	var out []int
	for _, m := range a.Included {
		out = append(out, m.UID)
	}
	return out
}

func cutFor(a Activation, uid int) (Cut, bool) {
	for _, c := range a.Cut {
		if c.UID == uid {
			return c, true
		}
	}
	return Cut{}, false
}

func matchFor(a Activation, uid int) (Match, bool) {
	for _, m := range a.Included {
		if m.UID == uid {
			return m, true
		}
	}
	return Match{}, false
}
