package replan

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// fallbackTemplates are the template narrations of seed 001 §2.3.4.
var fallbackTemplates = []string{
	"The narrator pauses, considering your words: '%s'",
	"Your action '%s' echoes in the stillness...",
	"The story continues, though the path is unclear...",
}

// FallbackNarration is the narration when every plan failed: one of the
// seed's templates, chosen by the input so the same input always gets the
// same line.
func FallbackNarration(input string) string {
	in := clip(strings.Join(strings.Fields(input), " "), 200)
	if in == "" {
		return fallbackTemplates[2]
	}
	h := fnv.New32a()
	h.Write([]byte(in))
	t := fallbackTemplates[h.Sum32()%uint32(len(fallbackTemplates))]
	if !strings.Contains(t, "%s") {
		return t
	}
	return fmt.Sprintf(t, in)
}
