package pgkeys_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/authtest"
	"github.com/hearth-rpg/hearth/auth/pgkeys"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
)

func TestConformance(t *testing.T) {
	pgtest.Skip(t)
	authtest.Run(t, func(t *testing.T) auth.Store {
		s, err := pgkeys.Open(context.Background(), pgtest.URL(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestSessionConformance(t *testing.T) {
	pgtest.Skip(t)
	authtest.RunSessions(t, func(t *testing.T) authtest.SessionBackend {
		s, err := pgkeys.Open(context.Background(), pgtest.URL(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// Two servers adding the same name, in any ASCII case, at once: one user.
func TestConcurrentAddUserOneWinner(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	var stores []*pgkeys.Store
	for range 2 {
		s, err := pgkeys.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores = append(stores, s)
	}
	names := []string{"Morgan", "MORGAN", "morgan", "mOrGaN"}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			u := auth.User{ID: "u" + string(rune('a'+i)), Name: names[i%len(names)], Role: access.Player}
			errs[i] = stores[i%2].AddUser(ctx, u, time.Now())
		})
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, auth.ErrUserExists):
			t.Errorf("AddUser: %v", err)
		}
	}
	if us, _ := stores[0].Users(ctx); wins != 1 || len(us) != 1 {
		t.Errorf("%d additions won, %d users; want 1 and 1", wins, len(us))
	}
}
