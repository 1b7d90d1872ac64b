package auth

import (
	"context"
	"time"
)

// Store keeps users and their keys for a Keyring: rows, not rules. Names
// arrive already checked and in NFC; hashes, check bits and times are the
// Keyring's. Package sqlitekeys is one; package authtest is the suite every
// one must pass.
//
// Its errors wrap ErrNoUser, ErrNoKey or ErrUserExists where the methods
// say so; any other error means the store could not be read or written.
type Store interface {
	// AddUser stores u, created at created. A name already taken, compared
	// without regard to ASCII case, is ErrUserExists.
	AddUser(ctx context.Context, u User, created time.Time) error
	// User finds a user by name, without regard to ASCII case: ErrNoUser.
	User(ctx context.Context, name string) (User, error)
	// Users returns every user ordered by name, without regard to ASCII
	// case, then id.
	Users(ctx context.Context) ([]User, error)
	// RemoveUser deletes the named user and all their keys at once and
	// returns who it was: ErrNoUser.
	RemoveUser(ctx context.Context, name string) (User, error)

	// AddKey stores k for the user k.UserID: ErrNoUser if that user is
	// gone (removed meanwhile).
	AddKey(ctx context.Context, k StoredKey) error
	// Key returns key id and the user who holds it: ErrNoKey. It returns
	// what is stored now, whichever process wrote it: a Store may answer
	// from what it read before only if it can tell, on this call, that
	// nothing it read has changed since.
	Key(ctx context.Context, id string) (StoredKey, User, error)
	// Keys returns the keys of user userID, revoked ones included, oldest
	// first (then by id), User left empty.
	Keys(ctx context.Context, userID string) ([]KeyInfo, error)
	// SetCheck records the check bits of key id, only while it still has
	// this hash and none are recorded.
	SetCheck(ctx context.Context, id, hash string, check int64) error
	// RecordUse sets when keys were last used, all in one write; a time
	// earlier than the one stored changes nothing. Unknown ids are skipped.
	RecordUse(ctx context.Context, used map[string]time.Time) error
	// Revoke marks key id revoked at at; a revoked key keeps its first
	// revocation time. ErrNoKey.
	Revoke(ctx context.Context, id string, at time.Time) error
}

// StoredKey is a key as a Store keeps it: its secret only as a hash.
type StoredKey struct {
	ID     string
	UserID string
	// Hash is the argon2id hash of the secret in PHC form, parameters
	// included.
	Hash string
	// Check is 16 bits of the key (see quickCheck); HasCheck is false for
	// a key issued before they existed, until its next successful use.
	Check    int64
	HasCheck bool
	Created  time.Time
	Revoked  time.Time // zero while the key is active
}
