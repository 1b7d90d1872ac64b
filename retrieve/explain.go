package retrieve

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"
)

// Explain writes a result as a table for people (hearth search
// --explain): for each passage examined, its fused rank, chunk id, file,
// heading, score and signals, and whether it was kept or why it was cut;
// then the totals, including how many matches the reader's role withheld.
// Without Considered (the query did not ask to Explain), it lists the
// kept passages.
func Explain(w io.Writer, r Result) error {
	rows := r.Considered
	if rows == nil {
		rows = r.Passages
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tID\tFILE\tHEADING\tSCORE\tSIGNALS\tRESULT")
	for i, p := range rows {
		verdict := "kept"
		if p.Trace.Cut != Kept {
			verdict = "cut: " + string(p.Trace.Cut)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%.4f\t%s\t%s\n", i+1,
			cell(p.Chunk.ID, 48), cell(p.Chunk.File, 40), cell(p.Chunk.Heading(), 40),
			p.Score, signals(p.Trace.Signals), verdict)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write explanation: %w", err)
	}
	_, err := fmt.Fprintf(w, "kept %d of %d passages examined, %d tokens", len(r.Passages), len(rows), r.Tokens)
	if err == nil && r.Withheld > 0 {
		_, err = fmt.Fprintf(w, "; %d more matched but were cut: %s (not shown)", r.Withheld, CutRole)
	}
	if err == nil {
		_, err = fmt.Fprintln(w)
	}
	if err != nil {
		return fmt.Errorf("write explanation: %w", err)
	}
	return nil
}

func signals(ss []Signal) string {
	if len(ss) == 0 {
		return "-"
	}
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = fmt.Sprintf("%s #%d (%.3f)", s.Kind, s.Rank, s.Score)
	}
	return strings.Join(parts, ", ")
}

// cell makes s safe for one table cell: control characters (tabs and
// newlines would break the columns) become spaces, and it is cut to max
// runes.
func cell(s string, max int) string {
	if s == "" {
		return "-"
	}
	rs := []rune(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s))
	if len(rs) > max {
		return string(rs[:max-1]) + "…"
	}
	return string(rs)
}
