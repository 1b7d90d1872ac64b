package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// Stmts keeps a store's hot statements prepared once, by pool and text:
// parsing a statement on every call was half of what a small write cost.
// database/sql prepares a statement again, once, on each connection of
// the pool that runs it. The zero value is ready; Close closes them all,
// and a Stmts closed prepares nothing more.
type Stmts struct {
	// What names the store in the error after Close ("the game store").
	What string

	mu     sync.Mutex
	m      map[stmtKey]*sql.Stmt
	closed bool
}

type stmtKey struct {
	pool  *sql.DB
	query string
}

// Get returns query prepared on pool, preparing it on first use.
func (s *Stmts) Get(ctx context.Context, pool *sql.DB, query string) (*sql.Stmt, error) {
	k := stmtKey{pool, query}
	s.mu.Lock()
	st, ok := s.m[k]
	s.mu.Unlock()
	if ok {
		return st, nil
	}
	st, err := pool.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		st.Close()
		return nil, errors.New(s.What + " is closed")
	}
	if prev, ok := s.m[k]; ok { // prepared meanwhile by another call
		st.Close()
		return prev, nil
	}
	if s.m == nil {
		s.m = map[stmtKey]*sql.Stmt{}
	}
	s.m[k] = st
	return st, nil
}

// Close closes the statements; the pools stay open.
func (s *Stmts) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for k, st := range s.m {
		errs = append(errs, st.Close())
		delete(s.m, k)
	}
	s.closed = true
	return errors.Join(errs...)
}

// Len reports how many statements are prepared.
func (s *Stmts) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
