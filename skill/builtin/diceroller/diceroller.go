// Package diceroller is the dice-roller skill's program (script "roll"):
// it reads a tool input on stdin, rolls the dice notation in it with
// Hearth's dice package and reports the roll as NDJSON events (a log, a
// dice_roll ui_event, a lastRoll state patch, done).
//
// Input fields: "notation" (or "formula", or "dice"), e.g. "2d6+3" or
// "1d20 + player.stats.dexterity"; "refs", values for named references,
// flat ({"dex": 3}) or nested ({"player": {"stats": {"dexterity": 3}}});
// "seed", an integer for a repeatable roll. Configuration:
// showIndividualRolls (default true) and randomSource ("crypto", the
// default, or "pseudo").
package diceroller

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"strings"

	"github.com/hearth-rpg/hearth/dice"
	"github.com/hearth-rpg/hearth/skill/protocol"
)

// Run is the whole script; it returns the exit status. A bad roll is a
// logical failure (done with ok false, exit 0); only a broken stdout or
// stdin is a non-zero exit.
func Run(stdin io.Reader, stdout, stderr io.Writer) int {
	out := protocol.NewWriter(stdout)
	in, err := protocol.ReadInput(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "roll:", err)
		return 2
	}
	out.RequestID = in.RequestID
	fail := func(code, msg string) int {
		out.Emit(&protocol.ErrorEvent{ErrorCode: code, ErrorMessage: msg})
		if err := out.Emit(&protocol.Done{OK: false, Summary: msg}); err != nil {
			return 1
		}
		return 0
	}
	notation := firstString(in.Input, "notation", "formula", "dice")
	if notation == "" {
		return fail("missing_notation", `input needs "notation", such as "2d6+3"`)
	}
	r, err := source(in)
	if err != nil {
		return fail("random_source", err.Error())
	}
	out.Emit(&protocol.Log{Level: protocol.LevelInfo, Message: "Rolling " + notation})
	res, err := dice.Roll(r, notation, lookup(in.Input["refs"]))
	if err != nil {
		return fail("invalid_notation", err.Error())
	}
	var faces []any
	for _, t := range res.Terms {
		for _, d := range t.Dice {
			if !d.Dropped {
				faces = append(faces, d.Value)
			}
		}
	}
	last := map[string]any{"dice": res.Notation, "result": res.Total, "rolls": faces}
	payload := map[string]any{"notation": res.Notation, "total": res.Total, "text": res.String()}
	if res.Label != "" {
		last["label"], payload["label"] = res.Label, res.Label
	}
	if res.Successes != nil {
		last["successes"], payload["successes"] = *res.Successes, *res.Successes
	}
	if show, ok := in.Config["showIndividualRolls"].(bool); !ok || show {
		payload["terms"] = res.Terms
	}
	out.Emit(&protocol.UIEvent{Event: "dice_roll", Payload: payload})
	out.Emit(&protocol.StatePatch{Patch: map[string]any{"lastRoll": last}})
	if err := out.Emit(&protocol.Done{OK: true, Summary: fmt.Sprintf("Rolled %d", res.Total)}); err != nil {
		fmt.Fprintln(stderr, "roll:", err)
		return 1
	}
	return 0
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// source is the random source: a seeded generator when the input gives a
// seed or the configuration asks for "pseudo", otherwise one seeded from
// the operating system's cryptographic generator.
func source(in protocol.Input) (*mrand.Rand, error) {
	if s, ok := in.Input["seed"].(float64); ok {
		return mrand.New(mrand.NewPCG(uint64(int64(s)), 0x5eed)), nil
	}
	var seed [32]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, fmt.Errorf("reading random seed: %w", err)
	}
	if in.Config["randomSource"] == "pseudo" {
		return mrand.New(mrand.NewPCG(binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:16]))), nil
	}
	return mrand.New(mrand.NewChaCha8(seed)), nil
}

// lookup resolves references such as "dex" or "player.stats.dexterity"
// in refs, flat or nested.
func lookup(refs any) dice.Lookup {
	m, _ := refs.(map[string]any)
	return func(name string) (int, bool) {
		if v, ok := number(m[name]); ok {
			return v, true
		}
		var cur any = m
		for _, part := range strings.Split(name, ".") {
			obj, ok := cur.(map[string]any)
			if !ok {
				return 0, false
			}
			cur = obj[part]
		}
		return number(cur)
	}
}

func number(v any) (int, bool) {
	f, ok := v.(float64)
	if !ok || f != float64(int(f)) {
		return 0, false
	}
	return int(f), true
}
