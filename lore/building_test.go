package lore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
	"github.com/hearth-rpg/hearth/tokens"
	"github.com/hearth-rpg/hearth/world"
)

func TestBuildingPending(t *testing.T) {
	for name, tc := range map[string]struct {
		b    func() *lore.Building
		want string
	}{
		"nil is ready": {func() *lore.Building { return nil }, ""},
		"not started":  {func() *lore.Building { return lore.NewBuilding(40) }, "lore index still building (0 of 40 files)"},
		"part-way":     {func() *lore.Building { b := lore.NewBuilding(40); b.Progress(12); return b }, "lore index still building (12 of 40 files)"},
		"finished":     {func() *lore.Building { b := lore.NewBuilding(40); b.Progress(3); b.Finish(nil); return b }, ""},
		"failed": {func() *lore.Building {
			b := lore.NewBuilding(40)
			b.Progress(3)
			b.Finish(errors.New("disk full"))
			return b
		}, "lore index not built (3 of 40 files): disk full"},
		"first finish":    {func() *lore.Building { b := lore.NewBuilding(2); b.Finish(nil); b.Finish(errors.New("late")); return b }, ""},
		"progress capped": {func() *lore.Building { b := lore.NewBuilding(2); b.Progress(9); return b }, "lore index still building (2 of 2 files)"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := tc.b().Pending(); got != tc.want {
				t.Errorf("Pending() = %q, want %q", got, tc.want)
			}
		})
	}
}

// While its index builds, a Keeper answers a scene with an empty cache
// that says why, and never reads the half-built index (Index is nil here:
// reading it would panic).
func TestKeeperWhileBuilding(t *testing.T) {
	ctx := context.Background()
	b := lore.NewBuilding(10)
	b.Progress(4)
	k := &lore.Keeper{Campaign: "marsh", Packs: []string{"marsh"}, Building: b}
	w := &world.State{Player: "pc", Scene: world.Scene{Number: 2, Location: "bog"},
		Characters: map[string]*world.Character{"pc": {Name: "Ash", Location: "bog"}, "heron": {Name: "Heron", Location: "bog"}}}
	c, err := k.Scene(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if c.Pending != "lore index still building (4 of 10 files)" || c.Scene != 2 || c.Location != "bog" || len(c.NPCBriefings) != 0 {
		t.Errorf("scene while building: %+v", c)
	}
	if added, err := k.Join(ctx, w, c); err != nil || added {
		t.Errorf("Join while building = %v, %v; want no briefing", added, err)
	}
	if ps, _, err := k.CampaignLore(ctx, w, "the marsh"); err != nil || len(ps) != 0 {
		t.Errorf("CampaignLore while building = %v, %v", ps, err)
	}
}

// A build cancelled part-way keeps every file it wrote, and the next
// build writes only the rest.
func TestIndexPackResumesAfterCancel(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	files := 40 // more than one batch
	if err := os.WriteFile(filepath.Join(dir, "pack.yml"), []byte("id: marsh\nname: The Marsh\nversion: 1.0.0\nlayer: base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range files {
		text := fmt.Sprintf("# Pool %d\nThe pool number %d smells of %s.\n", i, i, strings.Repeat("peat ", i+1))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("lore_pool%02d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := campaign.LoadPack(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := sqliteindex.Open(ctx, filepath.Join(t.TempDir(), "lore.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	tok, err := tokens.CL100K()
	if err != nil {
		t.Fatal(err)
	}
	all := len(p.Files)
	if n, err := lore.Stale(ctx, ix, p); err != nil || n != all {
		t.Fatalf("Stale before indexing = %d, %v; want %d", n, err, all)
	}
	const stopAt = 21
	cctx, cancel := context.WithCancel(ctx)
	rep, err := lore.IndexPack(cctx, ix, p, tok, func(done, total int, file string) {
		if done == stopAt {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build: %v", err)
	}
	if rep.Indexed != stopAt {
		t.Fatalf("cancelled build wrote %d files, want %d", rep.Indexed, stopAt)
	}
	if n, err := lore.Stale(ctx, ix, p); err != nil || n != all-stopAt {
		t.Fatalf("Stale after the cancel = %d, %v; want %d", n, err, all-stopAt)
	}
	rep, err = lore.IndexPack(ctx, ix, p, tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Indexed != all-stopAt || rep.Unchanged != stopAt {
		t.Errorf("resumed build: %+v; want %d indexed, %d unchanged", rep, all-stopAt, stopAt)
	}
	if n, err := lore.Stale(ctx, ix, p); err != nil || n != 0 {
		t.Errorf("Stale after the build = %d, %v; want 0", n, err)
	}
}
