package pgindex_test

import (
	"context"
	"math"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
	"github.com/hearth-rpg/hearth/retrieve/retrievetest"
)

// changeFixture is one server's index (the one whose in-memory vectors
// are checked) over a small corpus, and the URL other writers use.
type changeFixture struct {
	url string
	ix  *pgindex.Index
}

func newChangeFixture(t *testing.T) *changeFixture {
	t.Helper()
	ctx := context.Background()
	u := pgtest.URL(t)
	// Every row a candidate: the in-memory search is exact, and must rank
	// as pgvector's exact scan over the rows as they now stand.
	ix, err := pgindex.Open(ctx, u, pgindex.WithEmbedder(embedding.NewHashing(64)), pgindex.WithVectorCandidates(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if ix.Mode() != pgindex.VectorsPGExact {
		t.Skipf("pgvector is not installed on the test server: %s", ix.VectorSearch())
	}
	c := retrievetest.Build(t, 300, 20, 17)
	if err := retrievetest.Fill(ctx, ix, c.Files); err != nil {
		t.Fatal(err)
	}
	if err := ix.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	return &changeFixture{url: u, ix: ix}
}

// sql runs stmts on a connection of its own (another server, as far as
// the index can tell).
func (f *changeFixture) sql(t *testing.T, stmts string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, stmts); err != nil {
		t.Fatalf("%s: %v", stmts, err)
	}
}

func (f *changeFixture) int(t *testing.T, query string) int64 {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int64
	if err := conn.QueryRow(ctx, query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// hits is the in-memory ranking for text, which must serve the index as
// it now stands, checked against pgvector's exact scan (rows may trade
// places only where their scores tie).
func (f *changeFixture) hits(t *testing.T, text string, k int) []int64 {
	t.Helper()
	ctx := context.Background()
	got, scores, ok, err := f.ix.MemVectorHits(ctx, text, k)
	if err != nil || !ok {
		t.Fatalf("%q: the in-memory vectors do not serve the index as it stands (%v, %v)", text, ok, err)
	}
	want, err := f.ix.ExactHits(ctx, text, k)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %d hits in memory, pgvector %d", text, len(got), len(want))
	}
	for j := range got {
		if got[j] == want[j] {
			continue
		}
		i := slices.Index(got, want[j])
		if i < 0 || math.Abs(scores[i]-scores[j]) > 1e-6 {
			t.Fatalf("%q: in memory hit %d is row %d, pgvector's row %d (in memory at %d)\n got %v\nwant %v", text, j, got[j], want[j], i, got, want)
		}
	}
	return got
}

// copyChunk is SQL that adds chunk id as a copy of row from's columns,
// with row vec's vector.
func copyChunk(id string, from, vec int64) string {
	return `INSERT INTO lore_chunks (id, corpus, pack, file, section, heading, page, ordinal, source_type, content_type,
		entity_type, entity_id, refs, location, faction, threads, tags, tier, is_player, access, text, tokens, file_hash, turn, tsv)
		SELECT '` + id + `', corpus, 'copies', '` + id + `', section, heading, page, ordinal, source_type, content_type,
		entity_type, entity_id, refs, location, faction, threads, tags, tier, is_player, access, text, tokens, file_hash, turn, tsv
		FROM lore_chunks WHERE n = ` + strconv.FormatInt(from, 10) + `;
		INSERT INTO lore_vectors (chunk, vec) SELECT (SELECT n FROM lore_chunks WHERE id = '` + id + `'), vec
		FROM lore_vectors WHERE chunk = ` + strconv.FormatInt(vec, 10) + `;`
}

const query = "the wizard casts a spell of fire"

// TestVectorsCatchUpWithOtherWriters writes behind a server that holds
// the vectors in memory, from another server's index, another
// connection's SQL and psql, and checks that its next search ranks the
// rows as they now stand (a new chunk found, a deleted one gone, a
// changed one re-ranked) from the change log: without reading every
// vector again.
func TestVectorsCatchUpWithOtherWriters(t *testing.T) {
	ctx := context.Background()
	f := newChangeFixture(t)
	top := f.hits(t, query, 10)
	reads := f.ix.VectorReads()

	// Another server writes a file whose chunks are the query itself.
	other, err := pgindex.Open(ctx, f.url, pgindex.WithEmbedder(embedding.NewHashing(64)), pgindex.WithoutMemVectors())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	c := retrievetest.Build(t, 3, 3, 5)
	for i := range c.Files[0] {
		c.Files[0][i].Text = query
		c.Files[0][i].Section = nil
		c.Files[0][i].ID = "" // pack/file#ordinal
	}
	if err := other.Upsert(ctx, "new", "spells.md", "h", c.Files[0]); err != nil {
		t.Fatal(err)
	}
	newRows := f.int(t, `SELECT min(n) FROM lore_chunks WHERE pack = 'new'`)
	got := f.hits(t, query, 10)
	if !slices.Contains(got[:3], newRows) {
		t.Fatalf("the new chunk %d is not among the first three hits: %v", newRows, got)
	}

	// Another connection deletes the best old chunk.
	f.sql(t, `DELETE FROM lore_chunks WHERE n = `+strconv.FormatInt(top[0], 10))
	if got := f.hits(t, query, 20); slices.Contains(got, top[0]) {
		t.Fatalf("deleted chunk %d still found: %v", top[0], got)
	}

	// psql gives the worst of the old top ten the query's own vector.
	low := top[9]
	stmt := `UPDATE lore_vectors SET vec = (SELECT vec FROM lore_vectors WHERE chunk = ` + strconv.FormatInt(newRows, 10) + `) WHERE chunk = ` + strconv.FormatInt(low, 10)
	if _, err := exec.LookPath("psql"); err == nil {
		// libpq takes no search_path in the URL: PGOPTIONS names it.
		cmd := exec.Command("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", stmt, pgtest.Skip(t))
		cmd.Env = append(cmd.Environ(), "PGOPTIONS=-c search_path="+schema(t, f.url))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("psql: %v\n%s", err, out)
		}
	} else {
		f.sql(t, stmt)
	}
	if got := f.hits(t, query, 10); !slices.Contains(got[:4], low) {
		t.Fatalf("chunk %d, given the query's vector, is not among the first four hits: %v", low, got)
	}
	// An access level changed: the GM still sees it; checked by hits.
	f.sql(t, `UPDATE lore_chunks SET access = 4 WHERE n = `+strconv.FormatInt(top[1], 10))
	f.hits(t, query, 10)
	f.sql(t, copyChunk("copied", top[2], newRows))
	f.hits(t, query, 10)

	if n := f.ix.VectorReads(); n != reads {
		t.Errorf("the vectors were read whole %d times after the writes, want 0: the change log was not used", n-reads)
	}

	// Roles and filters: the caught-up vectors and their columns rank as
	// a server that read everything after the writes.
	fresh, err := pgindex.Open(ctx, f.url, pgindex.WithEmbedder(embedding.NewHashing(64)), pgindex.WithVectorCandidates(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if err := fresh.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	old := c.Files[0][0]
	for _, flt := range []retrieve.Filter{{}, {Packs: []string{"new"}}, {ExcludePacks: []string{"new"}},
		{Location: old.Location}, {ContentTypes: []string{old.ContentType}}, {Packs: []string{"copies"}}} {
		for _, role := range []access.Level{access.Player, access.GM} {
			rq := retrieve.Query{Text: query, Role: role, Limit: 40, Budget: 1 << 30, Filter: flt}
			if got, want := vectorSignals(t, f.ix, rq), vectorSignals(t, fresh, rq); !slices.Equal(got, want) {
				t.Fatalf("as %v, filter %+v: caught up\n got %v\nread whole\n want %v", role, flt, got, want)
			}
		}
	}
	if n := f.ix.VectorReads(); n != reads {
		t.Errorf("the vectors were read whole %d times by the filtered searches, want 0", n-reads)
	}
}

// TestVectorsCatchUpCommitOrder: two writers at once, the first to begin
// writing the last to commit. The second waits for the first (both take
// the generation's row lock), so a server that catches up in between sees
// neither, and afterwards both: no commit is skipped however they
// interleave with the catch-up.
func TestVectorsCatchUpCommitOrder(t *testing.T) {
	ctx := context.Background()
	f := newChangeFixture(t)
	top := f.hits(t, query, 10)
	reads := f.ix.VectorReads()
	gen := f.int(t, `SELECT value::bigint FROM lore_meta WHERE key = 'generation'`)

	first, err := pgx.Connect(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close(ctx)
	if _, err := first.Exec(ctx, `BEGIN; `+copyChunk("first", top[5], top[0])); err != nil {
		t.Fatal(err)
	}
	secondDone := make(chan error, 1)
	var secondPID uint32
	second, err := pgx.Connect(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close(ctx)
	secondPID = second.PgConn().PID()
	go func() {
		_, err := second.Exec(ctx, `BEGIN; DELETE FROM lore_chunks WHERE n = `+strconv.FormatInt(top[1], 10)+`; COMMIT`)
		secondDone <- err
	}()
	// Wait until the second writer waits for a lock (the generation's).
	deadline := time.Now().Add(2 * time.Minute)
	for f.int(t, `SELECT count(*) FROM pg_stat_activity WHERE pid = `+strconv.FormatUint(uint64(secondPID), 10)+` AND wait_event_type = 'Lock'`) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the second writer never waited for the first")
		}
		time.Sleep(20 * time.Millisecond)
	}
	got := f.hits(t, query, 10)
	if !slices.Contains(got, top[1]) {
		t.Fatalf("chunk %d, deleted by an uncommitted writer, is gone: %v", top[1], got)
	}
	if g := f.int(t, `SELECT value::bigint FROM lore_meta WHERE key = 'generation'`); g != gen {
		t.Fatalf("generation %d while both writers are open, want %d", g, gen)
	}
	if _, err := first.Exec(ctx, `COMMIT`); err != nil {
		t.Fatal(err)
	}
	if err := <-secondDone; err != nil {
		t.Fatal(err)
	}
	got = f.hits(t, query, 10)
	firstRow := f.int(t, `SELECT n FROM lore_chunks WHERE id = 'first'`)
	if slices.Contains(got, top[1]) || got[0] != firstRow && got[0] != top[0] {
		t.Fatalf("after both commits: %v; want %d (or its twin %d) first and %d gone", got, firstRow, top[0], top[1])
	}
	if n := f.ix.VectorReads(); n != reads {
		t.Errorf("the vectors were read whole %d times, want 0", n-reads)
	}
}

// TestVectorsFallBackToFullRead: when the change log cannot bring the
// vectors up to date (trimmed past what the server holds, or a TRUNCATE),
// they are read whole, and still rank the rows as they stand.
func TestVectorsFallBackToFullRead(t *testing.T) {
	f := newChangeFixture(t)
	top := f.hits(t, query, 10)
	reads := f.ix.VectorReads()
	// A change whose log entries are then trimmed away, as the trigger
	// trims entries 100,000 generations old.
	f.sql(t, `UPDATE lore_vectors SET vec = (SELECT vec FROM lore_vectors WHERE chunk = `+strconv.FormatInt(top[0], 10)+`)
		WHERE chunk = `+strconv.FormatInt(top[9], 10)+`;
		DELETE FROM lore_changes;
		UPDATE lore_meta SET value = (SELECT value FROM lore_meta WHERE key = 'generation') WHERE key = 'changes_from'`)
	waitServes(t, f)
	if got := f.hits(t, query, 10); !slices.Contains(got[:3], top[9]) {
		t.Fatalf("after a trimmed log: chunk %d, given the best vector, not among the first three: %v", top[9], got)
	}
	if n := f.ix.VectorReads(); n != reads+1 {
		t.Fatalf("read whole %d times after a trimmed log, want 1", n-reads)
	}
	f.sql(t, `TRUNCATE lore_vectors`)
	waitServes(t, f)
	if got, _, ok, err := f.ix.MemVectorHits(context.Background(), query, 10); err != nil || !ok || len(got) != 0 {
		t.Fatalf("after TRUNCATE: %v, %v, %v; want no hits from memory", got, ok, err)
	}
	if n := f.ix.VectorReads(); n != reads+2 {
		t.Fatalf("read whole %d times after a TRUNCATE too, want 2", n-reads)
	}
}

// waitServes waits until the in-memory vectors serve the index as it
// now stands (a full read may run in the background).
func waitServes(t *testing.T, f *changeFixture) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := f.ix.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
}

func schema(t *testing.T, u string) string {
	t.Helper()
	p, err := pgx.ParseConfig(u)
	if err != nil {
		t.Fatal(err)
	}
	return p.RuntimeParams["search_path"]
}
