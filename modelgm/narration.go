package modelgm

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// narration is the narrator pass's structured output (seed 004): the
// prose told to the player and what it brought into the story, which the
// turn persists through the rules.
type narration struct {
	Narration        string            `json:"narration" jsonschema:"the prose told to the player"`
	SceneTransition  *sceneTransition  `json:"scene_transition,omitempty" jsonschema:"only when the story moves to a new scene"`
	IntroducedNPCs   []introducedNPC   `json:"introduced_npcs,omitempty" jsonschema:"people or creatures the narration brings in for the first time"`
	EstablishedFacts []establishedFact `json:"established_facts,omitempty" jsonschema:"new things the narration makes true in the story"`
}

type sceneTransition struct {
	Title    string `json:"title" jsonschema:"a short title for the new scene"`
	Location string `json:"location,omitempty" jsonschema:"where it takes place; default the player's location"`
	Mood     string `json:"mood,omitempty"`
}

type introducedNPC struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Disposition string `json:"disposition,omitempty" jsonschema:"friendly, neutral, wary or hostile"`
}

type establishedFact struct {
	Subject  string `json:"subject,omitempty" jsonschema:"who or what the fact is about"`
	Fact     string `json:"fact"`
	Category string `json:"category,omitempty" jsonschema:"appearance, personality, event, relationship, backstory, motivation, capability, location, possession or status"`
}

// narrationFormat tells the narrator the shape of its answer; the schema
// goes with the request too, for providers that enforce it.
const narrationFormat = `Answer with one JSON object and nothing else:
{"narration": "<the prose>", "scene_transition": {"title": "…", "location": "…", "mood": "…"}, "introduced_npcs": [{"name": "…", "description": "…", "disposition": "…"}], "established_facts": [{"subject": "…", "fact": "…", "category": "…"}]}
- "narration": the prose, as the instructions above describe it.
- "scene_transition": only when the story moves on to a new place or situation; otherwise leave it out.
- "introduced_npcs": only people or creatures who appear in your narration for the first time, never someone in the context.
- "established_facts": only new things your narration makes true that the story should remember; usually none.`

// Stream modes.
const (
	undecided = iota
	prose
	structuredJSON
)

// narrationStream tells a structured narrator answer while it streams: it
// finds the top-level "narration" string and emits its decoded text as it
// arrives. An answer that does not begin as JSON (a model that ignored
// the format) is prose, emitted as it comes.
type narrationStream struct {
	emit     func(string)
	buf      strings.Builder
	mode     int
	emitted  int  // bytes of the decoded narration emitted
	complete bool // the narration string has ended
}

func (n *narrationStream) write(s string) {
	if n.mode == prose {
		n.emit(s)
		n.emitted += len(s)
		return
	}
	n.buf.WriteString(s)
	if n.mode == undecided {
		t := strings.TrimLeft(n.buf.String(), " \t\r\n")
		switch {
		case t == "":
			return
		case t[0] == '{' || t[0] == '`':
			n.mode = structuredJSON
		default:
			n.mode = prose
			n.buf.Reset()
			n.emit(t)
			n.emitted += len(t)
			return
		}
	}
	text, complete := narrationPrefix(n.buf.String())
	if len(text) > n.emitted {
		n.emit(text[n.emitted:])
		n.emitted = len(text)
	}
	n.complete = complete
}

// finish emits whatever of the final narration the stream did not (all of
// it for a provider that does not stream).
func (n *narrationStream) finish(final string) {
	if n.mode == structuredJSON && n.emitted < len(final) && strings.HasPrefix(final, n.told()) {
		n.emit(final[n.emitted:])
		n.emitted = len(final)
	}
}

// told is the narration emitted so far.
func (n *narrationStream) told() string {
	if n.mode != structuredJSON {
		return ""
	}
	t, _ := narrationPrefix(n.buf.String())
	return t[:min(n.emitted, len(t))]
}

// narrationPrefix returns the decoded text of the top-level "narration"
// string in a JSON object that may still be arriving, and whether the
// string has ended.
func narrationPrefix(s string) (string, bool) {
	i := strings.IndexByte(s, '{')
	if i < 0 {
		return "", false
	}
	depth, key := 0, false
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case '{', '[':
			depth++
			key = c == '{' && depth == 1
		case '}', ']':
			depth--
			if depth <= 0 {
				return "", false
			}
		case ',':
			key = depth == 1
		case '"':
			end := stringEnd(s, i)
			if end < 0 {
				return "", false
			}
			if depth == 1 && key {
				key = false
				if s[i+1:end] == "narration" {
					j := skipSpace(s, end+1)
					if j >= len(s) || s[j] != ':' {
						return "", false
					}
					j = skipSpace(s, j+1)
					if j >= len(s) || s[j] != '"' {
						return "", false
					}
					return decodePartial(s[j+1:])
				}
			}
			i = end
		}
	}
	return "", false
}

func skipSpace(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
		i++
	}
	return i
}

// stringEnd is the index of the quote closing the string opening at i,
// or -1 when it has not arrived yet.
func stringEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// decodePartial decodes the body of a JSON string (after its opening
// quote) as far as it has arrived, stopping before an escape or a UTF-8
// sequence that is not complete yet, so that what it returns only ever
// grows as more arrives.
func decodePartial(v string) (string, bool) {
	safe, complete := 0, false
loop:
	for j := 0; j < len(v); {
		switch v[j] {
		case '"':
			safe, complete = j, true
			break loop
		case '\\':
			n := 2
			if j+1 < len(v) && v[j+1] == 'u' {
				n = 6
				// A high surrogate waits for its low half.
				if j+6 <= len(v) && strings.ContainsRune("dD", rune(v[j+2])) && strings.ContainsRune("89abAB", rune(v[j+3])) {
					n = 12
				}
			}
			if j+n > len(v) {
				break loop
			}
			j += n
		default:
			j++
		}
		safe = j
	}
	body := v[:safe]
	if !complete {
		// A rune split across chunks waits for its last bytes.
		for k := 0; k < utf8.UTFMax-1 && body != ""; k++ {
			if r, size := utf8.DecodeLastRuneInString(body); r != utf8.RuneError || size > 1 {
				break
			}
			body = body[:len(body)-1]
		}
	}
	var out string
	if err := json.Unmarshal([]byte(`"`+body+`"`), &out); err != nil {
		return "", false
	}
	return out, complete
}
