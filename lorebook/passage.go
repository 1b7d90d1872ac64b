package lorebook

import "strconv"

// Passage is an included entry in the shape of a retrieved passage, so
// keyword lore and retrieval results can share one context budget.
type Passage struct {
	ID      string `json:"id"` // lorebook:<book>:<uid>
	Text    string `json:"text"`
	Tokens  int    `json:"tokens"`
	Order   int    `json:"order"`         // insertion order; higher sits later and matters more
	Key     string `json:"key,omitempty"` // the primary key that matched
	Reason  Reason `json:"reason"`
	Comment string `json:"comment,omitempty"`
}

// PassageID is the id Passages gives an entry.
func PassageID(book string, uid int) string {
	return "lorebook:" + book + ":" + strconv.Itoa(uid)
}

// Passages returns the included entries with text, in prompt order.
// Entries whose content is empty (an entry can exist only for its keys)
// have nothing to contribute and are left out.
func (a *Activation) Passages() []Passage {
	out := make([]Passage, 0, len(a.Included))
	for _, m := range a.Included {
		if m.Content == "" {
			continue
		}
		out = append(out, Passage{
			ID: PassageID(a.Book, m.UID), Text: m.Content, Tokens: m.Tokens,
			Order: m.Order, Key: m.Key, Reason: m.Reason, Comment: m.Comment,
		})
	}
	return out
}
