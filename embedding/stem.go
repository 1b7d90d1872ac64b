package embedding

import "strings"

// stem strips the commonest English inflections, returning the kept stem
// as a base and a short replacement suffix (so "ponies" is "pon"+"y")
// without allocating. It is deliberately lighter than Porter's algorithm:
// it only needs to bring plurals, -ing, -ed and -ly forms together.
func stem(w string) (base, suffix string) {
	// Possessives: "keeper's" is "keeper".
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	w = strings.TrimRight(w, "'’")
	n := len(w)
	switch {
	case n <= 3:
		return w, ""
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3], "y"
	case strings.HasSuffix(w, "sses"):
		return w[:n-2], ""
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w, ""
	case strings.HasSuffix(w, "s"):
		return w[:n-1], ""
	case strings.HasSuffix(w, "ing") && n >= 6:
		return undouble(w[:n-3]), ""
	case strings.HasSuffix(w, "ed") && n >= 5:
		return undouble(w[:n-2]), ""
	case strings.HasSuffix(w, "ly") && n >= 5:
		return w[:n-2], ""
	}
	return w, ""
}

// undouble turns "runn" (from "running") into "run", but keeps "fall",
// "pass" and "buzz", whose doubled letter belongs to the word.
func undouble(s string) string {
	n := len(s)
	if n >= 3 && s[n-1] == s[n-2] {
		switch s[n-1] {
		case 'l', 's', 'z', 'e', 'o':
		default:
			if s[n-1] >= 'a' && s[n-1] <= 'z' {
				return s[:n-1]
			}
		}
	}
	return s
}

// isStopword reports the function words that would otherwise make every
// English text look alike.
func isStopword(w string) bool {
	switch w {
	case "a", "an", "and", "are", "as", "at", "be", "been", "but", "by",
		"for", "from", "had", "has", "have", "he", "her", "his", "i", "if",
		"in", "into", "is", "it", "its", "of", "on", "or", "she", "so",
		"that", "the", "their", "them", "then", "there", "these", "they",
		"this", "to", "was", "we", "were", "which", "who", "will", "with",
		"you", "your":
		return true
	}
	return false
}
