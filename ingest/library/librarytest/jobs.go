package librarytest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/retrieve"
)

func jobIDs(js []library.Job) []string {
	var out []string
	for _, j := range js {
		out = append(out, j.ID)
	}
	return out
}

func testJobs(t *testing.T, st library.Store, _ retrieve.Index) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(min int) *time.Time { x := t0.Add(time.Duration(min) * time.Minute); return &x }
	if _, err := st.Job(ctx, "job_none"); !errors.Is(err, library.ErrNotFound) {
		t.Fatalf("an absent job: %v", err)
	}
	jobs := []library.Job{
		{ID: "job_a", File: "a.pdf", Status: library.JobDone, Started: *at(0), Finished: at(5), DocumentID: "da"},
		{ID: "job_b", File: "b.pdf", Status: library.JobFailed, Started: *at(1), Finished: at(2), Error: "the PDF is encrypted"},
		{ID: "job_c", File: "c.pdf", Title: "C", Tags: []string{"x", "y"}, Access: access.GM, Hash: "hc", DocumentID: "dc",
			Status: library.JobRunning, Stage: "classify", Resumes: 1, Started: *at(2)},
		{ID: "job_d", File: "d.pdf", Status: library.JobQueued, Started: *at(3)},
	}
	for _, j := range jobs {
		if err := st.SaveJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.Job(ctx, "job_c")
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "C" || !slices.Equal(got.Tags, []string{"x", "y"}) || got.Access != access.GM || got.Hash != "hc" ||
		got.DocumentID != "dc" || got.Stage != "classify" || got.Resumes != 1 || !got.Started.Equal(*at(2)) || got.Finished != nil {
		t.Errorf("job read back: %+v", got)
	}
	if got, _ := st.Job(ctx, "job_a"); got.Finished == nil || !got.Finished.Equal(*at(5)) {
		t.Errorf("finished time: %+v", got.Finished)
	}
	all, err := st.Jobs(ctx, library.JobQuery{})
	if err != nil || !slices.Equal(jobIDs(all), []string{"job_d", "job_c", "job_b", "job_a"}) {
		t.Errorf("all jobs, newest first: %v %v", jobIDs(all), err)
	}
	if un, err := st.Jobs(ctx, library.JobQuery{Unfinished: true}); err != nil || !slices.Equal(jobIDs(un), []string{"job_d", "job_c"}) {
		t.Errorf("unfinished: %v %v", jobIDs(un), err)
	}
	if two, _ := st.Jobs(ctx, library.JobQuery{Limit: 2}); len(two) != 2 {
		t.Errorf("limit 2: %v", jobIDs(two))
	}
	// Saving again replaces: the job fails.
	c := jobs[2]
	c.Status, c.Error, c.Finished = library.JobFailed, "the uploaded file is gone", at(9)
	if err := st.SaveJob(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Job(ctx, "job_c"); got.Status != library.JobFailed || got.Error != c.Error || got.Finished == nil {
		t.Errorf("replaced: %+v", got)
	}
	// Pruning keeps the most recently finished and every unfinished one.
	n, err := st.PruneJobs(ctx, 1)
	if err != nil || n != 2 {
		t.Errorf("pruned %d %v, want 2", n, err)
	}
	if all, _ := st.Jobs(ctx, library.JobQuery{}); !slices.Equal(jobIDs(all), []string{"job_d", "job_c"}) {
		t.Errorf("after pruning: %v", jobIDs(all))
	}
}
