package database

import (
	"context"
	"log/slog"
	"time"

	"github.com/hearth-rpg/hearth/internal/pgdb"
)

// watchEvery is how often a PostgreSQL server that answers is checked.
const watchEvery = 5 * time.Second

// maxRetry caps the wait between checks while the server is down.
const maxRetry = 30 * time.Second

// watch checks the PostgreSQL server every interval until stop is
// called. The pool itself reconnects on the next acquisition: watch only
// notices the loss and the return, logs both (once each, not per
// request), and checks more often while the server is down, backing off
// from one second to maxRetry. Requests in the meantime fail with an
// error (and /health answers 503); nothing stops. Both lines are
// warnings, so that a server logging only warnings shows the pair.
func watch(h *pgdb.DB, log *slog.Logger, interval time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait := interval
		var downSince time.Time
		tries := 0
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
			err := h.Pool().Ping(pctx)
			pcancel()
			if ctx.Err() != nil {
				return
			}
			switch {
			case err != nil && downSince.IsZero():
				downSince, tries = time.Now(), 1
				log.Error("database: PostgreSQL does not answer; requests fail until it is back, retrying with backoff",
					"where", h.Where(), "err", err.Error())
				wait = time.Second
			case err != nil:
				tries++
				wait = min(2*wait, maxRetry)
				log.Warn("database: PostgreSQL still does not answer", "where", h.Where(), "tries", tries,
					"down", time.Since(downSince).Round(time.Second).String(), "next_try", wait.String())
			case !downSince.IsZero():
				log.Warn("database: PostgreSQL answers again", "where", h.Where(),
					"down", time.Since(downSince).Round(time.Second).String())
				downSince, wait = time.Time{}, interval
			}
		}
	}()
	return func() { cancel(); <-done }
}
