package campaign_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/campaign"
)

func TestPackLorebooks(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "lorebooks"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "pack.yml"), []byte("id: isles\nname: Isles\nversion: 1.0.0\nlayer: base\naccess: trusted\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "lorebooks", "tides.json"), []byte(`{"entries":{"0":{"uid":0,"key":["tide"],"content":"Tides turn at the bell."}}}`), 0o644))
	p, err := campaign.LoadPack(context.Background(), dir)
	must(err)
	if len(p.Lorebooks) != 1 || p.Lorebooks[0].Book.Name != "isles:tides" || p.Lorebooks[0].Access.String() != "trusted" || len(p.Lorebooks[0].Book.Entries) != 1 {
		t.Fatalf("lorebooks: %+v", p.Lorebooks)
	}

	must(os.WriteFile(filepath.Join(dir, "lorebooks", "broken.json"), []byte(`{"entries":{"0":{"uid":"x","key":7}}}`), 0o644))
	rep, err := campaign.Validate(context.Background(), dir)
	must(err)
	if rep.OK() || !strings.Contains(rep.Text(), "lorebooks/broken.json") {
		t.Errorf("a broken lorebook is not reported with its file:\n%s", rep.Text())
	}
}
