package assistant

import (
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/tokens"
)

// summarise condenses the messages left out of the model's context into a
// note for the system prompt: the first sentence of each question and
// answer, the latest kept when they exceed maxTokens. It is extractive, so
// it needs no model and says the same for the same conversation.
func summarise(msgs []llm.Message, c *tokens.Counter, maxTokens int) string {
	var lines []string
	for _, m := range msgs {
		text := strings.Join(strings.Fields(m.Content), " ")
		if text == "" {
			continue
		}
		var who string
		switch m.Role {
		case llm.User:
			who = "The user asked"
		case llm.Assistant:
			who = "You answered"
		default:
			continue // tool results are details the answers already used
		}
		lines = append(lines, fmt.Sprintf("- %s: %s", who, firstSentence(text, 200)))
	}
	head := fmt.Sprintf("Earlier in this conversation (%d older messages, summarised because they no longer fit):", len(msgs))
	used := c.Count(head)
	start := len(lines)
	for start > 0 {
		n := c.Count(lines[start-1]) + 1
		if used+n > maxTokens {
			break
		}
		used += n
		start--
	}
	if start == len(lines) {
		return head + "\n- (too long to summarise)"
	}
	return head + "\n" + strings.Join(lines[start:], "\n")
}

// firstSentence returns s up to its first sentence end, at most max bytes
// (cut at a space).
func firstSentence(s string, max int) string {
	if i := strings.IndexAny(s, ".?!"); i >= 0 && i+1 < len(s) {
		s = s[:i+1]
	}
	if len(s) > max {
		cut := strings.LastIndexByte(s[:max], ' ')
		if cut < max/2 {
			cut = max
		}
		s = s[:cut] + "…"
	}
	return s
}
