package skill

import "context"

type envKey struct{}

// WithEnv returns a context whose skill invocations get env added to
// their environment: a turn hands its host API grant to every script it
// runs this way, whatever runs them.
func WithEnv(ctx context.Context, env []string) context.Context {
	return context.WithValue(ctx, envKey{}, env)
}

// EnvFrom is the environment WithEnv attached to ctx.
func EnvFrom(ctx context.Context) []string {
	env, _ := ctx.Value(envKey{}).([]string)
	return env
}
