package auth

import "context"

type clientKey struct{}

// WithClient returns a copy of ctx that names the client (a network
// address) an Authenticate call is made for, so failures from one client
// do not lock out another. server.Require sets it from the request.
func WithClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

// ClientFrom returns the client WithClient put on ctx, or "".
func ClientFrom(ctx context.Context) string {
	c, _ := ctx.Value(clientKey{}).(string)
	return c
}
