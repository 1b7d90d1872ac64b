package sqliteindex

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/internal/syncbuf"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/bm25"
	"github.com/hearth-rpg/hearth/retrieve/retrievetest"
)

// waitMemTest builds the memory index for the index as it stands.
func waitMemTest(t testing.TB, ix *Index) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := ix.waitMem(ctx); err != nil {
		t.Fatalf("build the in-memory full text: %v", err)
	}
}

// ftsRank is FTS5's own ranking of text's terms with the role and
// filter, every match scored, ties by row: the reference.
func ftsRank(t testing.TB, ix *Index, text string, role int, f retrieve.Filter, k int) []bm25.Hit {
	t.Helper()
	cond, args := where(f)
	rows, err := ix.r.Query(`SELECT lore_fts.rowid, -lore_fts.rank FROM lore_fts JOIN lore_chunks c ON c.n = lore_fts.rowid
		WHERE lore_fts MATCH ? AND c.access <= ?`+cond+` ORDER BY lore_fts.rank, lore_fts.rowid LIMIT ?`,
		append(append([]any{matchQuery(text), role}, args...), k)...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []bm25.Hit
	for rows.Next() {
		var h bm25.Hit
		if err := rows.Scan(&h.Row, &h.Score); err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameRanking reports where two rankings differ: scores position by
// position (relative 1e-9) and rows, except that rows of equal scores
// may come in either order.
func sameRanking(got, want []bm25.Hit) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d hits, want %d", len(got), len(want))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
	for i := range got {
		if !near(got[i].Score, want[i].Score) {
			return fmt.Sprintf("hit %d scores %.17g, want %.17g", i, got[i].Score, want[i].Score)
		}
		if got[i].Row == want[i].Row {
			continue
		}
		tied := false
		for j := range want {
			tied = tied || want[j].Row == got[i].Row && near(want[j].Score, want[i].Score)
		}
		if !tied {
			return fmt.Sprintf("hit %d is row %d, want %d (score %.17g)", i, got[i].Row, want[i].Row, want[i].Score)
		}
	}
	return ""
}

// TestMemFullTextMatchesFTS5 checks the in-memory index's top k, rows
// and scores, against FTS5 ranking every match, with roles and filters:
// over real text (the SRD pack's and the PDFs' paragraphs, recombined by
// retrievetest, with its 160 SRD queries) and over a generated corpus.
func TestMemFullTextMatchesFTS5(t *testing.T) {
	ctx := context.Background()
	type set struct {
		name    string
		files   [][]chunk.Chunk
		queries []string
	}
	var sets []set
	real := retrievetest.Build(t, 4000, 20, 3)
	var rq []string
	for i, q := range retrievetest.Queries(t) {
		if i%5 == 0 {
			q.Text += fmt.Sprintf(" tag%02d", i%50) // the tags column, weighted 2
		}
		rq = append(rq, q.Text)
	}
	sets = append(sets, set{"real text", real.Files, rq})
	c := newCorpus(21, 400)
	var gq []string
	for i := range 60 {
		if i%2 == 0 {
			gq = append(gq, c.text(3+i%20))
		} else {
			gq = append(gq, c.queryText(1+i%5))
		}
		if i%3 == 0 {
			gq[i] += fmt.Sprintf(" tag%02d", i%50)
		}
	}
	sets = append(sets, set{"generated", c.files(1500, 10), gq})
	for _, s := range sets {
		t.Run(s.name, func(t *testing.T) {
			ix := openTest(t)
			if err := fill(ctx, ix, s.files); err != nil {
				t.Fatal(err)
			}
			waitMemTest(t, ix)
			gen, err := ix.generation(ctx)
			if err != nil {
				t.Fatal(err)
			}
			a, b := s.files[3][0], s.files[len(s.files)/2][1]
			filters := []retrieve.Filter{
				{},
				{Packs: []string{a.Pack}},
				{ExcludePacks: []string{a.Pack, b.Pack}},
				{ContentTypes: []string{a.ContentType}},
				{Tags: a.Tags},
				{EntityIDs: []string{a.EntityID, b.EntityID}},
				{Location: a.Location},
				{Corpora: []chunk.Corpus{""}},
				{Corpora: []chunk.Corpus{chunk.History}},
				{Packs: []string{a.Pack, b.Pack, "nowhere"}, Tags: b.Tags, TagMatch: retrieve.All},
				{ExcludePacks: []string{b.Pack}, ContentTypes: []string{a.ContentType, b.ContentType}, Location: b.Location},
			}
			compared, nonEmpty := 0, 0
			for qi, text := range s.queries {
				f := filters[qi%len(filters)]
				for _, role := range []int{int(access.Player), int(access.GM)} {
					for _, k := range []int{10, 40} {
						got, ok, err := ix.memRank(ctx, gen, text, role, f, k)
						if err != nil {
							t.Fatal(err)
						}
						if !ok {
							continue
						}
						want := ftsRank(t, ix, text, role, f, k)
						if d := sameRanking(got, want); d != "" {
							t.Fatalf("%q, role %d, filter %+v, k %d: %s\n got %v\nwant %v", text, role, f, k, d, got, want)
						}
						compared++
						if len(want) > 0 {
							nonEmpty++
						}
					}
				}
			}
			if compared < len(s.queries)*3 || nonEmpty < compared/2 {
				t.Fatalf("compared %d rankings (%d non-empty) of %d queries; the test proves little", compared, nonEmpty, len(s.queries))
			}
		})
	}
}

// TestMemTokensMatchFTS5 checks the Go tokenizer against FTS5's own
// vocabulary over real text: every token FTS5 indexed, in as many rows,
// and no other (fts5vocab), besides the row lengths every build checks.
func TestMemTokensMatchFTS5(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t)
	if err := fill(ctx, ix, retrievetest.Build(t, 6000, 20, 5).Files); err != nil {
		t.Fatal(err)
	}
	waitMemTest(t, ix)
	snap := ix.mem.snap
	if _, err := ix.w.Exec(`CREATE VIRTUAL TABLE temp.lore_vocab USING fts5vocab(main, 'lore_fts', 'row')`); err != nil {
		t.Fatal(err)
	}
	rows, err := ix.w.Query(`SELECT term, doc FROM temp.lore_vocab`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	terms, bad := 0, 0
	for rows.Next() {
		var term string
		var df int
		if err := rows.Scan(&term, &df); err != nil {
			t.Fatal(err)
		}
		terms++
		if got := snap.ix.DocFreq(term); got != df {
			if bad++; bad <= 10 {
				t.Errorf("token %q: in %d rows here, %d in FTS5", term, got, df)
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if terms != snap.ix.Terms() {
		t.Errorf("%d distinct tokens here, %d in FTS5", snap.ix.Terms(), terms)
	}
	if terms < 5000 {
		t.Fatalf("only %d tokens; the test proves little", terms)
	}
	t.Logf("%d tokens, %d rows agree", terms, snap.ix.Docs())
}

// TestMemFollowsWrites checks that a write makes the memory index stale
// at once (a search right after sees the write, from FTS5) and that the
// rebuilt index ranks the new contents as FTS5 does.
func TestMemFollowsWrites(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t)
	c := newCorpus(31, 300)
	files := c.files(300, 10)
	if err := fill(ctx, ix, files); err != nil {
		t.Fatal(err)
	}
	waitMemTest(t, ix)
	// Rewrite one file with a word no chunk held.
	f := files[7]
	for i := range f {
		f[i].Text += " zyzzogeton"
		f[i].Access = access.Player
	}
	if err := ix.Upsert(ctx, f[0].Pack, f[0].File, "h2", f); err != nil {
		t.Fatal(err)
	}
	q := retrieve.Query{Text: "zyzzogeton", Role: access.Player, Limit: 40}
	if got := len(search(t, ix, q).Passages); got != len(f) {
		t.Fatalf("right after the write: %d passages, want %d", got, len(f))
	}
	waitMemTest(t, ix)
	gen, err := ix.generation(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ix.memSnapshot(ctx, gen) == nil {
		t.Fatal("no memory index for the generation after the write")
	}
	for _, text := range []string{"zyzzogeton", c.text(8) + " zyzzogeton", c.text(5)} {
		got, ok, err := ix.memRank(ctx, gen, text, int(access.Player), retrieve.Filter{}, 40)
		if err != nil || !ok {
			t.Fatalf("memRank: %v, %v", ok, err)
		}
		if d := sameRanking(got, ftsRank(t, ix, text, int(access.Player), retrieve.Filter{}, 40)); d != "" {
			t.Fatalf("%q after the write: %s", text, d)
		}
	}
	ix.results = resultCache{}
	if got := len(search(t, ix, q).Passages); got != len(f) {
		t.Fatalf("from the rebuilt index: %d passages, want %d", got, len(f))
	}
}

// TestMemStepsAsideWhenFTS5Disagrees makes FTS5's record of one row's
// length disagree with the Go tokenizer: the build must fail saying so,
// not be retried at that generation, and FTS5 must go on serving.
func TestMemStepsAsideWhenFTS5Disagrees(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t)
	// The empty index built first, so that the rows below come by a
	// catch-up after the lengths are changed, never by a build that ran
	// before (which a loaded machine can delay past the writes).
	waitMemTest(t, ix)
	c := newCorpus(32, 300)
	if err := fill(ctx, ix, c.files(100, 10)); err != nil {
		t.Fatal(err)
	}
	// One varint per column: heading, text, tags.
	if _, err := ix.w.Exec(`UPDATE lore_fts_docsize SET sz = X'017F01' WHERE id = (SELECT min(id) FROM lore_fts_docsize)`); err != nil {
		t.Fatal(err)
	}
	err := ix.waitMem(ctx)
	if err == nil || !strings.Contains(err.Error(), "in FTS5; full text stays with FTS5") {
		t.Fatalf("build: %v, want the length disagreement", err)
	}
	gen, err := ix.generation(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ix.memSnapshot(ctx, gen) != nil {
		t.Fatal("a memory index was built")
	}
	ix.mem.mu.Lock()
	building := ix.mem.building
	ix.mem.mu.Unlock()
	if building {
		t.Fatal("the failed build is being tried again at the same generation")
	}
	text := c.text(6)
	r := search(t, ix, retrieve.Query{Text: text, Role: access.GM, Limit: 10})
	if len(r.Passages) == 0 {
		t.Fatalf("%q found nothing with FTS5 serving", text)
	}
}

// TestMemCatchUpFailureIsLogged: a catch-up that fails (here FTS5's
// lengths disagree with the rows it adds) says so once, at warn, with
// the reason, before the full build takes over.
func TestMemCatchUpFailureIsLogged(t *testing.T) {
	ctx := context.Background()
	var logs syncbuf.Buffer // the index logs from its own goroutines
	ix := openTest(t, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	waitMemTest(t, ix)
	c := newCorpus(32, 300)
	if err := fill(ctx, ix, c.files(100, 10)); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.w.Exec(`UPDATE lore_fts_docsize SET sz = X'017F01' WHERE id = (SELECT max(id) FROM lore_fts_docsize)`); err != nil {
		t.Fatal(err)
	}
	if err := ix.waitMem(ctx); err == nil {
		t.Fatal("the full text was built over lengths FTS5 disagrees with")
	}
	var caught []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "not brought up to date") {
			caught = append(caught, l)
		}
	}
	if len(caught) != 1 || !strings.Contains(caught[0], "level=WARN") || !strings.Contains(caught[0], "tokens here and") {
		t.Fatalf("want one warning giving the reason; the log:\n%s", logs.String())
	}
}
