package sqlitekeys

import (
	"runtime"
	"sync"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/auth"
)

// Every request's key check runs on one of a few goroutines that live as
// long as the store. SQLite's calls are deep (its virtual machine's frames
// are large), and on a request's own goroutine, new with each connection,
// they grew its stack by copying on nearly every request (12-18 µs of a
// chat's start in a burst of new connections, by the CPU profile; some
// of that growth moves to the request's later work), and a burst's
// requests each waited for one of the pool's connections.

// keyRead is one key check handed to a reader.
type keyRead struct {
	id   string
	key  auth.StoredKey
	usr  auth.User
	err  error
	done chan struct{} // one value when the read is done
}

// readers runs the reads of Key.
type readers struct {
	calls chan *keyRead
	stop  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
	pool  sync.Pool // *keyRead
}

// errClosed is Key's error after Close.
var errClosed = &hearth.Error{Code: hearth.Unavailable, Message: "the keyring is closed"}

// start starts the readers, as many as the reader pool's connections.
func (r *readers) start(read func(id string) (auth.StoredKey, auth.User, error)) {
	r.calls = make(chan *keyRead)
	r.stop = make(chan struct{})
	n := max(4, runtime.NumCPU())
	r.wg.Add(n)
	for range n {
		go func() {
			defer r.wg.Done()
			for {
				select {
				case c := <-r.calls:
					c.key, c.usr, c.err = read(c.id)
					c.done <- struct{}{}
				case <-r.stop:
					return
				}
			}
		}()
	}
}

// do runs read(id) on a reader and returns its result.
func (r *readers) do(id string) (auth.StoredKey, auth.User, error) {
	c, _ := r.pool.Get().(*keyRead)
	if c == nil {
		c = &keyRead{done: make(chan struct{}, 1)}
	}
	c.id = id
	select {
	case r.calls <- c:
	case <-r.stop:
		return auth.StoredKey{}, auth.User{}, errClosed
	}
	<-c.done
	k, u, err := c.key, c.usr, c.err
	*c = keyRead{done: c.done}
	r.pool.Put(c)
	return k, u, err
}

// close stops the readers once the reads they hold are done.
func (r *readers) close() {
	r.once.Do(func() {
		close(r.stop)
		r.wg.Wait()
	})
}
