package pdf

import (
	"regexp"
	"strings"
)

// Bands at the top and bottom of a page, as fractions of its height,
// where running headers, footers and page numbers live.
const furnitureBand = 0.09

var (
	pageNumberRe = regexp.MustCompile(`^(?i:page\s+)?[-–—]?\s*([0-9]{1,4}|[ivxlcdm]{1,7})\s*[-–—]?$`)
	numberRe     = regexp.MustCompile(`\b[0-9]{1,4}\b`)
	digitsRe     = regexp.MustCompile(`[0-9]+`)
)

// stripFurniture removes running headers, footers and bare page numbers
// from every page, in place, and returns the printed page labels found
// ("" where none was). A header or footer is a line in the top or
// bottom band whose text, with digits normalised, repeats on three or
// more pages.
func stripFurniture(pages [][]line, raw []*rawPage) []string {
	labels := make([]string, len(pages))
	inBand := func(p int, l line) (string, bool) {
		h := raw[p].height
		switch {
		case l.bottom <= h*furnitureBand:
			return "h:", true
		case l.top >= h*(1-furnitureBand):
			return "f:", true
		}
		return "", false
	}
	count := map[string]int{}
	for p, ls := range pages {
		seen := map[string]bool{}
		for _, l := range ls {
			if where, ok := inBand(p, l); ok {
				k := where + furnitureKey(l.text)
				if !seen[k] {
					seen[k] = true
					count[k]++
				}
			}
		}
	}
	repeats := len(pages) >= 3
	for p, ls := range pages {
		kept := ls[:0]
		for _, l := range ls {
			where, ok := inBand(p, l)
			if !ok {
				kept = append(kept, l)
				continue
			}
			text := strings.TrimSpace(l.text)
			if m := pageNumberRe.FindStringSubmatch(text); m != nil {
				labels[p] = m[1]
				continue
			}
			if repeats && count[where+furnitureKey(text)] >= 3 {
				if labels[p] == "" {
					if nums := numberRe.FindAllString(text, -1); len(nums) > 0 {
						labels[p] = nums[len(nums)-1]
					}
				}
				continue
			}
			kept = append(kept, l)
		}
		if len(kept) > 0 {
			kept[0].paraBefore = false
		}
		pages[p] = kept
	}
	return labels
}

// furnitureKey normalises a line so that running headers on different
// pages compare equal: digits become #, case and spacing are folded.
func furnitureKey(s string) string {
	s = digitsRe.ReplaceAllString(strings.ToLower(s), "#")
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "|", " ")), " ")
}
