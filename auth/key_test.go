package auth

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/crypto/argon2"
)

func TestParseKey(t *testing.T) {
	good, id, secret := newKey()
	tests := []struct {
		name, key string
		ok        bool
	}{
		{"fresh key", good, true},
		{"empty", "", false},
		{"no prefix", strings.TrimPrefix(good, keyPrefix), false},
		{"other prefix", "sk_" + strings.TrimPrefix(good, keyPrefix), false},
		{"upper case", strings.ToUpper(good), false},
		{"short secret", good[:len(good)-1], false},
		{"long secret", good + "a", false},
		{"no separator", keyPrefix + id + "a" + secret, false},
		{"separator moved", keyPrefix + id[:15] + "_" + id[15:] + secret, false},
		{"outside alphabet", keyPrefix + id + "_" + secret[:47] + "1", false},
		{"base64 alphabet", keyPrefix + id + "_" + secret[:47] + "-", false},
		{"trailing space", good[:len(good)-1] + " ", false},
		{"multibyte", keyPrefix + id + "_" + secret[:46] + "é", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotID, gotSecret, err := parseKey(tt.key)
			if tt.ok {
				if err != nil || gotID != id || gotSecret != secret {
					t.Fatalf("parseKey(%q) = %q, %q, %v; want %q, %q", tt.key, gotID, gotSecret, err, id, secret)
				}
				return
			}
			if !errors.Is(err, ErrMalformed) || !errors.Is(err, ErrInvalidKey) {
				t.Fatalf("parseKey(%q) = %q, %q, %v; want ErrMalformed", tt.key, gotID, gotSecret, err)
			}
		})
	}
}

func TestNewKeyUnique(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		k, id, _ := newKey()
		if seen[id] || seen[k] {
			t.Fatalf("newKey repeated %s", k)
		}
		seen[id], seen[k] = true, true
	}
}

// FuzzParseKey checks that the parser never panics and accepts only keys
// of exactly the issued shape.
func FuzzParseKey(f *testing.F) {
	k, _, _ := newKey()
	for _, s := range []string{k, "", "hth_", "hth__", "Bearer " + k, k + "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, secret, err := parseKey(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("parseKey(%q): error %v does not wrap ErrMalformed", s, err)
			}
			return
		}
		if keyPrefix+id+"_"+secret != s || !validKeyID(id) || len(secret) != secLen || !isKeyText(secret) {
			t.Fatalf("parseKey(%q) accepted %q, %q", s, id, secret)
		}
	})
}

func TestHash(t *testing.T) {
	p := Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}
	h := hashSecret("right", p)
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("hash %q lacks its parameters", h)
	}
	if h2 := hashSecret("right", p); h2 == h {
		t.Error("two hashes of one secret are equal: the salt is not random")
	}
	for _, tt := range []struct {
		secret string
		want   bool
	}{{"right", true}, {"wrong", false}, {"", false}, {"right ", false}} {
		got, err := verifySecret(argon2.IDKey, tt.secret, h)
		if err != nil || got != tt.want {
			t.Errorf("verifySecret(%q) = %v, %v; want %v", tt.secret, got, err, tt.want)
		}
	}
	// A stored hash keeps its own parameters: another cost still verifies.
	p2 := p
	p2.Time, p2.Memory, p2.KeyLen = 2, 128, 24
	h2 := hashSecret("right", p2)
	if ok, err := verifySecret(argon2.IDKey, "right", h2); !ok || err != nil {
		t.Errorf("hash with other parameters %q: %v, %v", h2, ok, err)
	}
}

func TestParseHashRejects(t *testing.T) {
	good := hashSecret("x", Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	f := strings.Split(good, "$")
	for name, s := range map[string]string{
		"empty":           "",
		"argon2i":         strings.Replace(good, "argon2id", "argon2i", 1),
		"old version":     strings.Replace(good, "v=19", "v=16", 1),
		"leading zero":    strings.Replace(good, "m=64", "m=064", 1),
		"huge memory":     strings.Replace(good, "m=64", "m=4294967295", 1),
		"zero time":       strings.Replace(good, "t=1", "t=0", 1),
		"zero threads":    strings.Replace(good, "p=1", "p=0", 1),
		"many threads":    strings.Replace(good, "p=1", "p=256", 1),
		"params reversed": strings.Replace(good, "m=64,t=1,p=1", "t=1,m=64,p=1", 1),
		"padded salt":     strings.Join([]string{"", f[1], f[2], f[3], f[4] + "==", f[5]}, "$"),
		"short salt":      strings.Join([]string{"", f[1], f[2], f[3], "AAAA", f[5]}, "$"),
		"short hash":      strings.Join([]string{"", f[1], f[2], f[3], f[4], "AAAA"}, "$"),
		"extra field":     good + "$",
	} {
		if _, _, _, err := parseHash(s); err == nil {
			t.Errorf("%s: parseHash(%q) accepted it", name, s)
		}
		if _, err := verifySecret(argon2.IDKey, "x", s); err == nil {
			t.Errorf("%s: verifySecret accepted %q", name, s)
		}
	}
}

// FuzzParseHash checks that hashes read back from the database never panic
// the parser and are accepted only in canonical form within bounds.
func FuzzParseHash(f *testing.F) {
	f.Add(hashSecret("x", Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}))
	f.Add("$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g")
	f.Add("$argon2id$v=19$m=,t=,p=$$")
	f.Fuzz(func(t *testing.T, s string) {
		p, salt, sum, err := parseHash(s)
		if err != nil {
			return
		}
		if p.validate() != nil {
			t.Fatalf("parseHash(%q) accepted out-of-bounds %+v", s, p)
		}
		if enc := encodeHash(p, salt, sum); enc != s {
			t.Fatalf("parseHash(%q) is not canonical: re-encodes as %q", s, enc)
		}
	})
}
