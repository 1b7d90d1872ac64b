package pdf

import "sync"

// imageBudget is a document's image allowance, handed out in page order.
// Pages are read on several goroutines, so a later page can reach its
// images before an earlier one; it may keep one only while fewer than
// limit are kept on it and the pages before it. An earlier page is thus
// never refused for a later page's sake, and collectImages keeps the
// first limit in document order whatever the schedule. Pages are fed in
// order, so the pictures made beyond limit are at most about one limit
// per page being read at once.
//
// A nil budget keeps nothing.
type imageBudget struct {
	mu    sync.Mutex
	limit int
	kept  []int // images kept on each page
}

func newImageBudget(limit, pages int) *imageBudget {
	return &imageBudget{limit: max(limit, 0), kept: make([]int, pages)}
}

// keptThrough counts the images kept on pages 0 to page; b.mu is held.
func (b *imageBudget) keptThrough(page int) int {
	n := 0
	for _, k := range b.kept[:page+1] {
		n += k
	}
	return n
}

// open says whether page may still keep an image.
func (b *imageBudget) open(page int) bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return page < len(b.kept) && b.keptThrough(page) < b.limit
}

// take claims one image for page, or says the allowance up to it is spent.
func (b *imageBudget) take(page int) bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if page >= len(b.kept) || b.keptThrough(page) >= b.limit {
		return false
	}
	b.kept[page]++
	return true
}

// giveBack returns n images page took but did not keep.
func (b *imageBudget) giveBack(page, n int) {
	if b == nil || n <= 0 {
		return
	}
	b.mu.Lock()
	b.kept[page] = max(b.kept[page]-n, 0)
	b.mu.Unlock()
}
