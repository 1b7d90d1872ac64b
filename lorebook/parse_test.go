package lorebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseFixtures(t *testing.T) {
	for _, tc := range []struct {
		file   string
		format Format
		name   string
	}{
		{"saltmere_worldinfo.json", SillyTavern, ""},
		{"saltmere_card_v3.json", CardV3, "Saltmere"},
	} {
		b, err := Parse(readFixture(t, tc.file))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if b.Format != tc.format || b.Name != tc.name || len(b.Entries) != 9 || len(b.Warnings) != 0 {
			t.Errorf("%s: format %q name %q, %d entries, warnings %v", tc.file, b.Format, b.Name, len(b.Entries), b.Warnings)
		}
		fog := b.Entries[6]
		if fog.Comment != "Harbour fog" || fog.Position != AtDepth || fog.Depth != 2 || fog.Sticky != 2 || fog.Cooldown != 2 || fog.Order != 40 {
			t.Errorf("%s: uid 6 read as %+v", tc.file, fog)
		}
		if !b.Entries[8].Disabled || !b.Entries[0].Constant || b.Entries[5].GroupWeight != 300 || b.Entries[7].Delay != 3 {
			t.Errorf("%s: fields lost: %+v", tc.file, b.Entries)
		}
	}
}

// The same book written as a SillyTavern file and as a V3 card must
// activate identically, turn after turn.
func TestFormatsActivateIdentically(t *testing.T) {
	st, err := Parse(readFixture(t, "saltmere_worldinfo.json"))
	if err != nil {
		t.Fatal(err)
	}
	card, err := Parse(readFixture(t, "saltmere_card_v3.json"))
	if err != nil {
		t.Fatal(err)
	}
	st.Name, card.Name = "saltmere", "saltmere"
	c := counter(t)
	chat := []string{
		"We ride into Saltmere at dusk.",
		"Is that a lighthouse on the point?",
		"The keeper waves from the gallery.",
		"Any smuggler in town worth knowing?",
		"A foggy night. Someone is singing in the water.",
		"I owe the Harrows nothing.",
		"The choir's song grows louder.",
		"calm seas",
	}
	stateA, stateB := &State{}, &State{}
	for turn := range chat {
		for _, budget := range []int{0, 60} {
			in := Input{Messages: chat[:turn+1], Turn: turn, Seed: 99, Counter: c, Budget: budget}
			var a, b Activation
			if budget == 0 {
				a, b = st.Activate(in, stateA), card.Activate(in, stateB)
			} else { // a dry run beside the stateful one
				a, b = st.Activate(in, nil), card.Activate(in, nil)
			}
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if !bytes.Equal(ja, jb) {
				t.Fatalf("turn %d budget %d:\nworld info: %s\ncard:       %s", turn, budget, ja, jb)
			}
			if turn == 4 && budget == 0 && !slices.Contains(uids(a), 6) {
				t.Errorf("turn 4: the fog regex key did not match: %v", uids(a))
			}
		}
	}
	if len(stateA.Sticky) != len(stateB.Sticky) || len(stateA.Cooldown) != len(stateB.Cooldown) {
		t.Errorf("states differ: %+v vs %+v", stateA, stateB)
	}
}

func TestParseVariations(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		check func(*Book) error
	}{
		{"numbers as strings",
			`{"entries":{"0":{"uid":"7","key":["x"],"order":"250","probability":"40","depth":"2","sticky":"1","selectiveLogic":"3","scanDepth":"5"}}}`,
			func(b *Book) error {
				e := b.Entries[0]
				if e.UID != 7 || e.Order != 250 || e.Probability != 40 || e.Depth != 2 || e.Sticky != 1 || e.Logic != AndAll || *e.ScanDepth != 5 {
					return fmt.Errorf("%+v", e)
				}
				return nil
			}},
		{"booleans as strings and numbers",
			`{"entries":{"0":{"key":["x"],"constant":"true","disable":0,"excludeRecursion":1,"caseSensitive":"false"}}}`,
			func(b *Book) error {
				e := b.Entries[0]
				if !e.Constant || e.Disabled || !e.ExcludeRecursion || e.CaseSensitive == nil || *e.CaseSensitive {
					return fmt.Errorf("%+v", e)
				}
				return nil
			}},
		{"card field names in a World Info file",
			`{"entries":{"3":{"keys":["a"],"secondary_keys":["b"],"insertion_order":5,"enabled":false,"content":"c"}}}`,
			func(b *Book) error {
				e := b.Entries[0]
				if e.UID != 3 || !slices.Equal(e.Keys, []string{"a"}) || !slices.Equal(e.SecondaryKeys, []string{"b"}) || e.Order != 5 || !e.Disabled {
					return fmt.Errorf("%+v", e)
				}
				return nil
			}},
		{"keys as one comma-separated string",
			`{"entries":{"0":{"key":"dragon, wyrm ,,drake","keysecondary":""}}}`,
			func(b *Book) error {
				if e := b.Entries[0]; !slices.Equal(e.Keys, []string{"dragon", "wyrm", "drake"}) || len(e.SecondaryKeys) != 0 {
					return fmt.Errorf("%q %q", e.Keys, e.SecondaryKeys)
				}
				return nil
			}},
		{"number keys",
			`{"entries":{"0":{"key":[1984, "year"]}}}`,
			func(b *Book) error {
				if e := b.Entries[0]; !slices.Equal(e.Keys, []string{"1984", "year"}) {
					return fmt.Errorf("%q", e.Keys)
				}
				return nil
			}},
		{"missing fields take SillyTavern's defaults",
			`{"entries":{"0":{}}}`,
			func(b *Book) error {
				e := b.Entries[0]
				if e.UID != 0 || e.Order != 100 || e.Probability != 100 || !e.UseProbability || !e.Selective || e.Depth != 4 ||
					e.GroupWeight != 100 || e.Position != BeforeChar || e.Disabled || e.ScanDepth != nil || e.CaseSensitive != nil {
					return fmt.Errorf("%+v", e)
				}
				return nil
			}},
		{"nulls take defaults",
			`{"entries":{"0":{"uid":null,"key":null,"probability":null,"order":null,"sticky":null,"group":null,"role":null}}}`,
			func(b *Book) error {
				if e := b.Entries[0]; e.Probability != 100 || e.Order != 100 || e.Sticky != 0 || len(e.Keys) != 0 {
					return fmt.Errorf("%+v", e)
				}
				return nil
			}},
		{"unknown fields are ignored",
			`{"entries":{"0":{"key":["x"],"vectorized":false,"characterFilter":{"names":["a"]},"futureThing":[1,2,{"a":null}]}},"originalData":{"whatever":1}}`,
			func(b *Book) error { return nil }},
		{"delayUntilRecursion as boolean and level",
			`{"entries":{"0":{"delayUntilRecursion":true},"1":{"delayUntilRecursion":3},"2":{"delayUntilRecursion":false}}}`,
			func(b *Book) error {
				if got := []int{b.Entries[0].DelayUntilRecursion, b.Entries[1].DelayUntilRecursion, b.Entries[2].DelayUntilRecursion}; !slices.Equal(got, []int{1, 3, 0}) {
					return fmt.Errorf("%v", got)
				}
				return nil
			}},
		{"entries sorted by uid, scan order by order then uid",
			`{"entries":{"10":{"order":5},"2":{"order":5},"1":{"order":9}}}`,
			func(b *Book) error {
				if got := []int{b.Entries[0].UID, b.Entries[1].UID, b.Entries[2].UID}; !slices.Equal(got, []int{1, 2, 10}) {
					return fmt.Errorf("entries %v", got)
				}
				var scan []int
				for _, i := range b.order {
					scan = append(scan, b.Entries[i].UID)
				}
				if !slices.Equal(scan, []int{1, 2, 10}) {
					return fmt.Errorf("scan order %v", scan)
				}
				return nil
			}},
		{"byte order mark",
			"\xef\xbb\xbf" + `{"entries":{}}`,
			func(b *Book) error { return nil }},
		{"V2 card with extensions",
			`{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Mira","character_book":{"entries":[
				{"keys":["x"],"content":"c","insertion_order":3,"enabled":true,"position":"before_char","case_sensitive":true,
				 "extensions":{"probability":25,"useProbability":true,"group":"g","group_override":true,"sticky":2,"position":4,"depth":1,"role":2,"exclude_recursion":true,"ignore_budget":true}}]}}}`,
			func(b *Book) error {
				e := b.Entries[0]
				if b.Format != CardV2 || b.Name != "Mira" || e.Probability != 25 || e.Group != "g" || !e.GroupOverride || e.Sticky != 2 ||
					e.Position != AtDepth || e.Depth != 1 || e.Role != Assistant || !e.ExcludeRecursion || !e.IgnoreBudget ||
					e.CaseSensitive == nil || !*e.CaseSensitive || e.Selective {
					return fmt.Errorf("%+v", e)
				}
				return nil
			}},
		{"card entry without enabled or position",
			`{"spec":"chara_card_v3","data":{"character_book":{"entries":[{"keys":["x"],"content":"c"}]}}}`,
			func(b *Book) error {
				if e := b.Entries[0]; e.Disabled || e.Position != AfterChar || e.Order != 100 {
					return fmt.Errorf("%+v", e)
				}
				return nil
			}},
		{"card ids, or their index",
			`{"spec":"chara_card_v3","data":{"character_book":{"entries":[{"keys":["a"]},{"id":7,"keys":["b"]},{"keys":["c"]}]}}}`,
			func(b *Book) error {
				if got := []int{b.Entries[0].UID, b.Entries[1].UID, b.Entries[2].UID}; !slices.Equal(got, []int{0, 2, 7}) {
					return fmt.Errorf("uids %v", got)
				}
				return nil
			}},
		{"string id falls back with a warning",
			`{"spec":"chara_card_v3","data":{"character_book":{"entries":[{"id":"castle-gate","keys":["a"]}]}}}`,
			func(b *Book) error {
				if b.Entries[0].UID != 0 || len(b.Warnings) != 1 {
					return fmt.Errorf("uid %d, warnings %v", b.Entries[0].UID, b.Warnings)
				}
				return nil
			}},
		{"standalone lorebook_v3",
			`{"spec":"lorebook_v3","data":{"name":"Atlas","token_budget":100,"entries":[{"keys":["x"],"content":"c","enabled":true,"insertion_order":1}]}}`,
			func(b *Book) error {
				if b.Format != LorebookV3 || b.Name != "Atlas" || b.TokenBudget != 100 || len(b.Entries) != 1 {
					return fmt.Errorf("%+v", b)
				}
				return nil
			}},
		{"bare character_book",
			`{"name":"Atlas","entries":[{"keys":["x"],"content":"c"}]}`,
			func(b *Book) error {
				if b.Format != CharacterBook || b.Name != "Atlas" || len(b.Entries) != 1 {
					return fmt.Errorf("%+v", b)
				}
				return nil
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Parse([]byte(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.check(b); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	big := `{"entries":{"0":{"content":"` + strings.Repeat("a", MaxBytes) + `"}}}`
	var many strings.Builder
	many.WriteString(`{"entries":{`)
	for i := range MaxEntries + 1 {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `"%d":{}`, i)
	}
	many.WriteString("}}")
	manyCard := `{"spec":"chara_card_v2","data":{"character_book":{"entries":[` + strings.Repeat(`{},`, MaxEntries) + `{}]}}}`

	for _, tc := range []struct {
		name, input string
		want        string // in the message
		is          error
	}{
		{"not JSON", `{"entries":`, "want a JSON object", ErrFormat},
		{"not an object", `[1,2]`, "want a JSON object", ErrFormat},
		{"null", `null`, "got null", ErrFormat},
		{"no entries", `{"name":"x"}`, `no "entries"`, ErrFormat},
		{"unknown spec", `{"spec":"chara_card_v9","data":{}}`, `"chara_card_v9"`, ErrFormat},
		{"card without a book", `{"spec":"chara_card_v3","data":{"name":"Mira"}}`, "$.data.character_book: missing", ErrFormat},
		{"too large", big, "bytes is more than", ErrTooLarge},
		{"too many entries", many.String(), "10001 entries", ErrTooLarge},
		{"too many card entries", manyCard, "10001 entries", ErrTooLarge},
		{"entries of the wrong type", `{"entries":"none"}`, `$.entries: want an object, got a string`, nil},
		{"entry of the wrong type", `{"entries":{"0":[1]}}`, `$.entries["0"]: want an object, got a list`, nil},
		{"order not a number", `{"entries":{"0":{"order":"high"}}}`, `$.entries["0"].order: want a number, got a string "high"`, nil},
		{"order not whole", `{"entries":{"0":{"order":1.5}}}`, `$.entries["0"].order: want a whole number`, nil},
		{"key list of objects", `{"entries":{"0":{"key":[{"a":1}]}}}`, `$.entries["0"].key[0]: want a string, got an object`, nil},
		{"key an object", `{"entries":{"0":{"key":{"a":1}}}}`, `$.entries["0"].key: want a list of strings`, nil},
		{"boolean a word", `{"entries":{"0":{"constant":"maybe"}}}`, `$.entries["0"].constant: want true or false`, nil},
		{"boolean a number", `{"entries":{"0":{"constant":2}}}`, `$.entries["0"].constant: want true or false`, nil},
		{"content a list", `{"entries":{"0":{"content":["a"]}}}`, `$.entries["0"].content: want a string, got a list`, nil},
		{"selective logic out of range", `{"entries":{"0":{"selectiveLogic":4}}}`, `selectiveLogic: a number 4 is not 0 (AND ANY)`, nil},
		{"position unknown", `{"entries":{"0":{"position":"somewhere"}}}`, `$.entries["0"].position:`, nil},
		{"duplicate uid", `{"entries":{"0":{"uid":3},"1":{"uid":3}}}`, "two entries have uid 3", nil},
		{"card entries not a list", `{"spec":"chara_card_v2","data":{"character_book":{"entries":{"0":{}}}}}`, "$.data.character_book.entries: want a list", nil},
		{"card field of the wrong type", `{"spec":"chara_card_v2","data":{"character_book":{"entries":[{"insertion_order":[1]}]}}}`, `$.data.character_book.entries[0].insertion_order: want a number`, nil},
		{"card extension of the wrong type", `{"spec":"chara_card_v2","data":{"character_book":{"entries":[{"extensions":{"sticky":"long"}}]}}}`, `$.data.character_book.entries[0].extensions.sticky: want a number`, nil},
		{"extensions not an object", `{"spec":"chara_card_v2","data":{"character_book":{"entries":[{"extensions":5}]}}}`, `entries[0].extensions: want an object`, nil},
		{"spec not a string", `{"spec":{"v":3}}`, `$.spec: want a string`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Parse([]byte(tc.input))
			if err == nil {
				t.Fatalf("no error; parsed %d entries", len(b.Entries))
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q is not %v", err, tc.is)
			}
			if !strings.HasPrefix(err.Error(), "lorebook: ") {
				t.Errorf("error %q does not name the package", err)
			}
		})
	}
}
