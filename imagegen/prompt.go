package imagegen

import (
	"strings"
	"unicode"
)

// Scene is what a table has seen of a moment of play, from which
// ScenePrompt writes a prompt. The caller fills it with what every player
// may see: the prompt and the picture are shown to the whole table.
type Scene struct {
	Campaign string
	// Location and its description; empty when not known (a past turn).
	Location, Description string
	// Mood is the scene's, when it has one ("tense").
	Mood string
	// Characters are who is present, by name.
	Characters []string
	// Narration is the last turns' narration, oldest first; the last one
	// is the moment to draw.
	Narration []string
}

// Style is the look every scene prompt asks for.
const Style = "Painterly fantasy illustration, dramatic lighting, rich detail, no text, no captions, no watermark."

// Bounds on the parts of a scene prompt, in bytes, so that the last
// moment always fits within MaxPrompt and DALL·E 2's 1000 characters are
// the only provider that may cut it.
const (
	maxMoment  = 1200
	maxEarlier = 600
	maxPlace   = 500
)

// ScenePrompt writes an image prompt for s from a fixed template: the
// same scene always gives the same prompt, and no model is called.
func ScenePrompt(s Scene) string {
	var b strings.Builder
	b.WriteString(Style)
	if c := oneLine(s.Campaign, 80); c != "" {
		b.WriteString(" From the tabletop adventure \"" + c + "\".")
	}
	if l := oneLine(s.Location, 120); l != "" {
		b.WriteString(" Setting: " + l)
		if d := oneLine(s.Description, maxPlace); d != "" {
			b.WriteString(" — " + d)
		}
		b.WriteString(".")
	}
	if m := oneLine(s.Mood, 60); m != "" {
		b.WriteString(" Mood: " + m + ".")
	}
	var names []string
	for _, n := range s.Characters {
		if n = oneLine(n, 60); n != "" && len(names) < 8 {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		b.WriteString(" Present: " + strings.Join(names, ", ") + ".")
	}
	var moment string
	var earlier []string
	for i := len(s.Narration) - 1; i >= 0; i-- {
		t := oneLine(s.Narration[i], maxMoment)
		if t == "" {
			continue
		}
		if moment == "" {
			moment = t
		} else {
			earlier = append([]string{t}, earlier...)
		}
	}
	if len(earlier) > 0 {
		// The last of the earlier turns matter most: keep their tail.
		e := strings.Join(earlier, " ")
		if len(e) > maxEarlier {
			e = "…" + tail(e, maxEarlier)
		}
		b.WriteString(" Just before: " + e)
	}
	if moment != "" {
		b.WriteString(" Depict this moment: " + moment)
	}
	return clip(strings.TrimSpace(b.String()), MaxPrompt)
}

// oneLine folds whitespace and control characters to single spaces and
// cuts to n bytes.
func oneLine(s string, n int) string {
	f := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
	out := strings.Join(f, " ")
	if len(out) > n {
		out = clip(out, n-len("…")) + "…"
	}
	return out
}

// tail is the last n bytes of s on a rune boundary.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
