package auth

import (
	"context"

	"github.com/hearth-rpg/hearth/access"
)

// User is an authenticated caller. Role decides what content it may read.
type User struct {
	ID   string
	Name string
	Role access.Level
}

type userKey struct{}

// WithUser returns a context carrying u.
func WithUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user the request was authenticated as.
func UserFrom(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}
