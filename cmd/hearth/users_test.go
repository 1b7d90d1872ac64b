package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/sqlitekeys"
)

// userCLI runs "hearth ARGS --data DIR" with the user command, in process,
// and returns stdout and the error.
func userCLI(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRoot(strings.NewReader(""), &out, &errb, os.Environ())
	root.SetArgs(append(args, "--data", dir))
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

var keyLine = regexp.MustCompile(`(?m)^(hth_([a-z2-7]{16})_[a-z2-7]{48})$`)

func authenticate(t *testing.T, dir, key string) (auth.User, error) {
	t.Helper()
	kr, err := sqlitekeys.OpenKeyring(context.Background(), filepath.Join(dir, "hearth.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer kr.Close()
	return kr.Authenticate(context.Background(), key)
}

func TestUserCommands(t *testing.T) {
	t.Setenv("LC_ALL", "en_US.UTF-8")
	dir := t.TempDir()
	must := func(args ...string) string {
		t.Helper()
		out, err := userCLI(t, dir, args...)
		if err != nil {
			t.Fatalf("hearth %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}

	if out := must("user", "list"); !strings.Contains(out, "hearth user add") {
		t.Errorf("empty list:\n%s", out)
	}
	out := must("user", "add", "alice", "--role", "gm")
	m := keyLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no key on a line of its own:\n%s", out)
	}
	key1, id1 := m[1], m[2]
	for _, want := range []string{"alice", "gm_only", "will not be shown again", "Authorization: Bearer " + key1} {
		if !strings.Contains(out, want) {
			t.Errorf("user add output lacks %q:\n%s", want, out)
		}
	}
	if u, err := authenticate(t, dir, key1); err != nil || u.Name != "alice" || u.Role != access.GM {
		t.Errorf("the printed key authenticates as %+v, %v", u, err)
	}

	m = keyLine.FindStringSubmatch(must("user", "key", "alice"))
	if m == nil || m[1] == key1 {
		t.Fatalf("user key printed %v", m)
	}
	key2, id2 := m[1], m[2]
	if out := must("user", "add", "bob"); !strings.Contains(out, "player") {
		t.Errorf("bob is not a player by default:\n%s", out)
	}

	list := must("user", "list")
	for _, want := range []string{"NAME", "LAST USED", id1, id2, "gm_only", "bob", "player", "never", "active"} {
		if !strings.Contains(list, want) {
			t.Errorf("list lacks %q:\n%s", want, list)
		}
	}
	for _, k := range []string{key1, key2} {
		if strings.Contains(list, k[len(k)-48:]) {
			t.Errorf("list shows a secret:\n%s", list)
		}
	}

	must("user", "revoke", id1)
	if _, err := authenticate(t, dir, key1); !errors.Is(err, auth.ErrRevoked) {
		t.Errorf("revoked key: %v", err)
	}
	if list := must("user", "list"); !strings.Contains(list, "revoked") {
		t.Errorf("list does not show the revocation:\n%s", list)
	}
	if _, err := authenticate(t, dir, key2); err != nil {
		t.Errorf("the other key stopped working: %v", err)
	}

	failures := []struct {
		args  []string
		want  error
		text  string
		usage bool
	}{
		{[]string{"user", "add", "alice"}, auth.ErrUserExists, "already a user named alice", false},
		{[]string{"user", "add", "carol", "--role", "wizard"}, nil, `Unknown role "wizard"`, true},
		{[]string{"user", "add", "no spaces"}, auth.ErrInvalidName, "cannot be a user name", true},
		{[]string{"user", "key", "nobody"}, auth.ErrNoUser, "no user named nobody", false},
		{[]string{"user", "revoke", "aaaaaaaaaaaaaaaa"}, auth.ErrNoKey, "no key aaaaaaaaaaaaaaaa", false},
		{[]string{"user", "remove", "nobody"}, auth.ErrNoUser, "hearth user list", false},
	}
	for _, tt := range failures {
		_, err := userCLI(t, dir, tt.args...)
		var ue usageError
		isUsage := errors.As(err, &ue)
		cause := err
		if isUsage {
			cause = ue.error // usageError does not unwrap
		}
		if err == nil || (tt.want != nil && !errors.Is(cause, tt.want)) || !strings.Contains(err.Error(), tt.text) || isUsage != tt.usage {
			t.Errorf("hearth %s: %v; want %v with %q (usage error: %v)", strings.Join(tt.args, " "), err, tt.want, tt.text, tt.usage)
		}
	}

	must("user", "remove", "alice")
	if _, err := authenticate(t, dir, key2); !errors.Is(err, auth.ErrUnknownKey) {
		t.Errorf("key of a removed user: %v", err)
	}
	if list := must("user", "list"); strings.Contains(list, "alice") || !strings.Contains(list, "bob") {
		t.Errorf("after removing alice:\n%s", list)
	}
}

func TestUserCommandsGerman(t *testing.T) {
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	dir := t.TempDir()
	out, err := userCLI(t, dir, "user", "list")
	if err != nil || !strings.Contains(out, "Noch keine Benutzer") {
		t.Errorf("list: %v\n%s", err, out)
	}
	_, err = userCLI(t, dir, "user", "key", "niemand")
	if err == nil || !strings.Contains(err.Error(), "keinen Benutzer namens niemand") {
		t.Errorf("key for nobody: %v", err)
	}
}
