package skill

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/skill/protocol"
)

// reader decodes a script's stdout, enforcing the protocol and the limits.
type reader struct {
	inv    *Invocation
	lim    Limits
	res    *Result // Events, Done and Ignored are written only by read
	assets map[string]bool

	mu   sync.Mutex
	fail *Error
	stop chan struct{} // closed when the script must be stopped
	done chan struct{} // closed when read returns
}

func (r *reader) failure() *Error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fail
}

func (r *reader) setFailure(cat Category, code, msg string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail == nil {
		r.fail = &Error{Skill: r.inv.Skill, Script: filepath.Base(r.inv.Script), Category: cat, Code: code, Msg: msg, Err: err}
		close(r.stop)
	}
}

func (r *reader) read(f *os.File) {
	defer close(r.done)
	d := protocol.NewDecoderSize(f, r.lim.MaxLine)
	for {
		ev, err := d.Next()
		if err == io.EOF {
			return
		}
		var de *protocol.DecodeError
		switch {
		case errors.As(err, &de):
			r.setFailure(InvalidJSON, de.Code, "broke the protocol on stdout, "+de.Error(), err)
			return
		case err != nil:
			return // the pipe was closed under us after the grace period
		}
		if d.InputOffset() > r.lim.MaxOutput || len(r.res.Events) >= r.lim.MaxEvents {
			r.flood()
			return
		}
		if a, ok := ev.(*protocol.Asset); ok {
			if !r.checkAsset(a) {
				return
			}
		}
		r.res.Events = append(r.res.Events, ev)
		if r.inv.OnEvent != nil {
			r.inv.OnEvent(ev)
		}
		if done, ok := ev.(*protocol.Done); ok {
			r.res.Done = done
			r.skipRest(d)
			return
		}
	}
}

// skipRest reads what follows done without accepting it (seed 001 §2.1.3:
// the runtime stops accepting events after done), still within the limit.
func (r *reader) skipRest(d *protocol.Decoder) {
	for d.Skip() == nil {
		r.res.Ignored++
		if d.InputOffset() > r.lim.MaxOutput {
			r.flood()
			return
		}
	}
}

func (r *reader) flood() {
	r.setFailure(ProcessError, CodeOutputLimit,
		fmt.Sprintf("wrote more than the output limit (%d bytes or %d events) and was stopped", r.lim.MaxOutput, r.lim.MaxEvents), nil)
}

// checkAsset confines an asset's path to the invocation's roots and makes
// its assetId unique; the path is rewritten to the absolute one checked.
func (r *reader) checkAsset(a *protocol.Asset) bool {
	if r.assets[a.AssetID] {
		r.setFailure(InvalidJSON, CodeDuplicateID, fmt.Sprintf("asset id %q used twice in one invocation", a.AssetID), nil)
		return false
	}
	r.assets[a.AssetID] = true
	p := a.Path
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.inv.Dir, p)
	}
	abs, err := filepath.Abs(p)
	if err == nil {
		if err = Confine(abs, r.inv.AssetRoots...); err == nil {
			a.Path = abs
			return true
		}
	}
	r.setFailure(ToolFailure, CodeAssetPath, fmt.Sprintf("asset %q: %v", a.AssetID, err), err)
	return false
}

// ErrOutsideRoots is returned by Confine for a path outside every root.
var ErrOutsideRoots = &hearth.Error{Code: hearth.Forbidden, Message: "path is outside the allowed directories"}

// Confine checks that path, an absolute path, names a regular file inside
// one of roots, following symbolic links only as far as they stay inside
// that root.
func Confine(path string, roots ...string) error {
	for _, root := range roots {
		if root == "" {
			continue
		}
		rootAbs, err := filepath.Abs(root)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(rootAbs, path)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		rt, err := os.OpenRoot(rootAbs)
		if err != nil {
			continue
		}
		fi, err := rt.Stat(rel)
		rt.Close()
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("%s does not exist; write the file before emitting the asset event", path)
			}
			return fmt.Errorf("%s: %w (%v)", path, ErrOutsideRoots, err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		return nil
	}
	if len(roots) == 0 {
		return fmt.Errorf("%s: %w: this invocation may not create assets", path, ErrOutsideRoots)
	}
	return fmt.Errorf("%s: %w: %s", path, ErrOutsideRoots, strings.Join(roots, ", "))
}
