package keptkeys

import (
	"sync"

	"github.com/hearth-rpg/hearth/auth"
)

// Max bounds the kept lookups: past it they are all dropped, and the
// next requests read their keys again.
const Max = 4096

// Keys is a set of kept lookups by key id. The zero value is empty and
// ready; it is safe for concurrent use.
type Keys struct {
	mu   sync.Mutex
	keys map[string]kept
}

// kept is a key's lookup as read after the generation gen was read.
type kept struct {
	gen int64
	key auth.StoredKey
	usr auth.User
}

// Get returns key id's lookup if it was kept at generation gen.
func (k *Keys) Get(id string, gen int64) (auth.StoredKey, auth.User, bool) {
	k.mu.Lock()
	e, ok := k.keys[id]
	k.mu.Unlock()
	if !ok || e.gen != gen {
		return auth.StoredKey{}, auth.User{}, false
	}
	return e.key, e.usr, true
}

// Put keeps key id's lookup, read after generation gen was read.
func (k *Keys) Put(id string, gen int64, key auth.StoredKey, usr auth.User) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.keys == nil || len(k.keys) >= Max {
		k.keys = make(map[string]kept)
	}
	k.keys[id] = kept{gen: gen, key: key, usr: usr}
}

// Lookup returns key id's lookup kept at generation gen, or calls read
// and keeps what it returns at gen. gen must have been read before read
// runs, so what read sees is at least as new as gen.
func (k *Keys) Lookup(id string, gen int64, read func() (auth.StoredKey, auth.User, error)) (auth.StoredKey, auth.User, error) {
	if key, usr, ok := k.Get(id, gen); ok {
		return key, usr, nil
	}
	key, usr, err := read()
	if err != nil {
		return key, usr, err
	}
	k.Put(id, gen, key, usr)
	return key, usr, nil
}
