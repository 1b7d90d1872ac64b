package narrative

import (
	"fmt"
	"strings"
)

// Recall returns the memories of q.Playthrough among events that best
// answer q, best first: by cosine similarity when q has a vector, else by
// shared words (the offline fallback), else the filter's matches, most
// recent first. It scans every event and is the reference the Index must
// agree with; use an Index for thousands of events.
//
// A vector query only considers events with embeddings, which must all
// have the query's dimension. An invalid event of the playthrough is an
// error, as Index.Add would have refused it.
func Recall(events []Event, q Query) ([]Match, error) {
	if err := q.normalize(); err != nil {
		return nil, err
	}
	method := q.method()
	var qterms []string
	if method == ByLexical {
		qterms = terms(q.Text)
	}
	var out []Match
	for i := range events {
		if events[i].Playthrough != q.Playthrough {
			continue
		}
		ev := events[i]
		if err := ev.Normalize(); err != nil {
			return nil, err
		}
		e := &ev
		if !q.Filter.matches(e) {
			continue
		}
		var score float64
		switch method {
		case ByVector:
			if len(e.Embedding) == 0 {
				continue
			}
			if len(e.Embedding) != len(q.Vector) {
				return nil, dimensionError(len(q.Vector), len(e.Embedding))
			}
			score = cosine(q.Vector, e.Embedding)
			if q.MinScore > 0 && score < q.MinScore {
				continue
			}
		case ByLexical:
			score = overlap(qterms, terms(eventText(e)))
			if score == 0 || score < q.MinOverlap {
				continue
			}
		case ByFilter:
			score = 1
		}
		m := Match{Event: *e, Score: score, Method: method}
		m.Event.Embedding = nil
		out = append(out, m)
	}
	if method == ByFilter {
		return recent(out, q.Limit), nil
	}
	return topK(out, q.Limit), nil
}

// method picks how q is scored.
func (q *Query) method() Method {
	switch {
	case len(q.Vector) > 0:
		return ByVector
	case strings.TrimSpace(q.Text) != "":
		return ByLexical
	}
	return ByFilter
}

// eventText is what the lexical fallback reads: the summary and the names
// attached to the event, so "the blacksmith" finds blacksmith_aldric.
func eventText(e *Event) string {
	var b strings.Builder
	b.WriteString(e.Summary)
	for _, s := range e.Characters {
		b.WriteByte(' ')
		b.WriteString(s)
	}
	b.WriteByte(' ')
	b.WriteString(e.Location)
	for _, s := range e.Tags {
		b.WriteByte(' ')
		b.WriteString(s)
	}
	return b.String()
}

// recent orders filter-only matches newest first (game time, then ID).
func recent(ms []Match, k int) []Match {
	for i := range ms {
		ms[i].Score = 1
	}
	sortRecent(ms)
	if len(ms) > k {
		ms = ms[:k]
	}
	return ms
}

func dimensionError(want, have int) error {
	return fmt.Errorf("a memory's embedding has %d dimensions and the query's %d: embed queries with the model that embedded the memories", have, want)
}
