package lore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/lorebook"
)

const book = `{"name":"cove","entries":{
 "0":{"uid":0,"key":["kelp"],"content":"Kelp here is harvested only at the new moon.","order":100},
 "1":{"uid":1,"key":["signet"],"content":"The signet ring opens the drowned vault.","order":90},
 "2":{"uid":2,"key":["ferry"],"content":"The ferry runs at dawn and dusk, never at night.","order":80,"sticky":2}
}}`

func TestTurnSharesOneBudget(t *testing.T) {
	ctx := context.Background()
	b, err := lorebook.Parse([]byte(book))
	if err != nil {
		t.Fatal(err)
	}
	b.Name = "cove"
	secret, err := lorebook.Parse([]byte(`{"entries":{"0":{"uid":0,"key":["signet"],"content":"Only Ada knows the vault's second lock.","order":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	secret.Name = "gm-notes"
	k := &lore.Keeper{Index: index(t), Campaign: "cove", Packs: []string{"cove"},
		Books: []lore.Book{{Book: b, Access: access.Player}, {Book: secret, Access: access.GM}}}
	c, err := k.Scene(ctx, cove())
	if err != nil {
		t.Fatal(err)
	}
	count := func(s string) int { return len(strings.Fields(s)) }
	st := &lorebook.State{}
	msgs := []string{"I ask Ada about the signet and the kelp."}

	all := k.Turn(lore.TurnInput{Cache: c, Messages: msgs, Turn: 1, State: st, Budget: 100000})
	if len(all.Keyword) != 3 { // kelp, signet, and the GM's note on the signet
		t.Fatalf("keyword passages: %+v", all.Keyword)
	}

	// A budget for about three passages keeps keyword lore and the cache
	// side by side, and says what it cut.
	tight := k.Turn(lore.TurnInput{Cache: c, Messages: msgs, Turn: 1, Budget: 40})
	var kw, cached int
	for _, id := range tight.Kept {
		if strings.HasPrefix(id, "lorebook:") {
			kw++
		} else {
			cached++
		}
	}
	if kw == 0 || cached == 0 {
		t.Errorf("one budget should hold both kinds: kept %v", tight.Kept)
	}
	budgetCuts := 0
	for _, cut := range tight.Cuts {
		if cut.Reason == "budget" {
			budgetCuts++
		}
	}
	if budgetCuts == 0 {
		t.Errorf("nothing cut for the budget: %+v", tight.Cuts)
	}

	text := func(tl lore.TurnLore, role access.Level) string {
		var sb strings.Builder
		for _, s := range tl.Sections(role, count) {
			sb.WriteString(s.Text + "\n")
		}
		return sb.String()
	}
	if p := text(all, access.Player); strings.Contains(p, "second lock") || strings.Contains(p, "signet ring in her net") || !strings.Contains(p, "new moon") {
		t.Errorf("player's turn lore:\n%s", p)
	}
	if g := text(all, access.GM); !strings.Contains(g, "second lock") {
		t.Errorf("GM's turn lore lacks the GM book:\n%s", g)
	}

	// Sticky keyword lore stays for the next turns through the state.
	k.Turn(lore.TurnInput{Cache: c, Messages: []string{"When does the ferry leave?"}, Turn: 2, State: st})
	later := k.Turn(lore.TurnInput{Cache: c, Messages: []string{"I wait on the shingle."}, Turn: 3, State: st})
	if !strings.Contains(text(later, access.Player), "dawn and dusk") {
		t.Errorf("sticky entry gone a turn later:\n%s", text(later, access.Player))
	}
}
