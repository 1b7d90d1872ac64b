package pdfread

import "unicode/utf16"

// toUnicode is a parsed ToUnicode CMap.
type toUnicode struct {
	// spaces are the code space ranges by byte length (1-4); empty
	// means the font decides the code length.
	spaces []codeSpace
	single map[uint32][]rune
	ranges []uniRange
}

type codeSpace struct {
	n      int
	lo, hi uint32
}

type uniRange struct {
	lo, hi uint32
	start  []rune   // lo maps to start, the last rune counting up
	each   [][]rune // or one entry per code (an array destination)
}

const maxCMapEntries = 1 << 20

// lookup maps a code; a range's result is built in buf.
func (c *toUnicode) lookup(code uint32, buf []rune) ([]rune, bool) {
	if r, ok := c.single[code]; ok {
		return r, true
	}
	for i := len(c.ranges) - 1; i >= 0; i-- {
		rg := &c.ranges[i]
		if code < rg.lo || code > rg.hi {
			continue
		}
		off := code - rg.lo
		if rg.each != nil {
			if int(off) < len(rg.each) {
				return rg.each[off], true
			}
			return nil, false
		}
		out := append(buf[:0], rg.start...)
		if len(out) > 0 {
			out[len(out)-1] += rune(off)
		}
		return out, true
	}
	return nil, false
}

func utf16Runes(s String) []rune {
	if len(s) == 1 {
		return []rune{rune(s[0])}
	}
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	return utf16.Decode(u)
}

func codeOf(s String) uint32 {
	var v uint32
	for _, b := range s[:min(len(s), 4)] {
		v = v<<8 | uint32(b)
	}
	return v
}

// parseToUnicode reads the codespace, bfchar and bfrange sections of a
// CMap; other operators are skipped.
func parseToUnicode(data []byte) (*toUnicode, error) {
	c := &toUnicode{single: map[uint32][]rune{}}
	p := parser{lex: lexer{b: data}, noRefs: true}
	var operands []Object
	entries := 0
	for {
		tok, ok, err := p.lex.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		kw, isKw := tok.(keyword)
		if !isKw {
			o, err := p.fromToken(tok, 0)
			if err != nil {
				// CMaps carry PostScript the object syntax does not
				// know ("{" procedures): skip the token.
				operands = operands[:0]
				continue
			}
			operands = append(operands, o)
			if len(operands) > 3*maxCMapEntries {
				return nil, malformed("ToUnicode CMap too large")
			}
			continue
		}
		switch kw {
		case "endcodespacerange":
			for i := 0; i+1 < len(operands); i += 2 {
				lo, ok1 := operands[i].(String)
				hi, ok2 := operands[i+1].(String)
				if ok1 && ok2 && len(lo) == len(hi) && len(lo) >= 1 && len(lo) <= 4 {
					c.spaces = append(c.spaces, codeSpace{len(lo), codeOf(lo), codeOf(hi)})
				}
			}
		case "endbfchar":
			for i := 0; i+1 < len(operands); i += 2 {
				src, ok1 := operands[i].(String)
				dst, ok2 := operands[i+1].(String)
				if ok1 && ok2 && len(src) > 0 {
					c.single[codeOf(src)] = utf16Runes(dst)
					entries++
				}
			}
		case "endbfrange":
			for i := 0; i+2 < len(operands); i += 3 {
				lo, ok1 := operands[i].(String)
				hi, ok2 := operands[i+1].(String)
				if !ok1 || !ok2 || len(lo) == 0 {
					continue
				}
				rg := uniRange{lo: codeOf(lo), hi: codeOf(hi)}
				if rg.hi < rg.lo || rg.hi-rg.lo > maxCMapEntries {
					continue
				}
				switch d := operands[i+2].(type) {
				case String:
					rg.start = utf16Runes(d)
				case Array:
					for _, e := range d {
						s, _ := e.(String)
						rg.each = append(rg.each, utf16Runes(s))
					}
				default:
					continue
				}
				c.ranges = append(c.ranges, rg)
				entries += int(rg.hi-rg.lo) + 1
			}
		}
		if entries > maxCMapEntries {
			return nil, malformed("ToUnicode CMap has more than %d entries", maxCMapEntries)
		}
		operands = operands[:0]
	}
	return c, nil
}
