package charcard

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"

	"github.com/hearth-rpg/hearth"
)

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// Chunk is one tEXt chunk of a PNG: a Latin-1 keyword and its text.
type Chunk struct {
	Keyword string
	Text    []byte
}

// TextChunks returns the tEXt chunks of a PNG, in file order, checking
// the signature, every chunk's length and CRC, and that the file ends
// with IEND. It does not decode the picture.
func TextChunks(data []byte) ([]Chunk, error) {
	if len(data) > MaxPNGBytes {
		return nil, hearth.Errorf(hearth.Invalid, "card: a %d-byte PNG is more than the %d allowed", len(data), MaxPNGBytes)
	}
	if !bytes.HasPrefix(data, pngSignature) {
		return nil, hearth.Errorf(hearth.Invalid, "card: not a PNG (no PNG signature)")
	}
	var out []Chunk
	rest := data[len(pngSignature):]
	for off := len(pngSignature); ; {
		if len(rest) < 12 {
			return nil, hearth.Errorf(hearth.Invalid, "card: PNG truncated at byte %d: no IEND chunk", off)
		}
		n := binary.BigEndian.Uint32(rest)
		typ := rest[4:8]
		if uint64(n) > uint64(len(rest)-12) {
			return nil, hearth.Errorf(hearth.Invalid, "card: PNG chunk %q at byte %d claims %d bytes, past the end of the file", typ, off, n)
		}
		body := rest[8 : 8+n]
		if crc32.ChecksumIEEE(rest[4:8+n]) != binary.BigEndian.Uint32(rest[8+n:]) {
			return nil, hearth.Errorf(hearth.Invalid, "card: PNG chunk %q at byte %d is corrupt (CRC mismatch)", typ, off)
		}
		switch string(typ) {
		case "tEXt":
			k, v, ok := bytes.Cut(body, []byte{0})
			if !ok || len(k) == 0 || len(k) > 79 {
				return nil, hearth.Errorf(hearth.Invalid, "card: PNG tEXt chunk at byte %d has no valid keyword", off)
			}
			out = append(out, Chunk{Keyword: string(k), Text: v})
		case "IEND":
			return out, nil
		}
		off += int(12 + n)
		rest = rest[12+n:]
	}
}

// ParsePNG reads the card embedded in a PNG: the "ccv3" tEXt chunk if
// there is one, else "chara", each base64 of the card's JSON.
func ParsePNG(data []byte) (*Card, error) {
	chunks, err := TextChunks(data)
	if err != nil {
		return nil, err
	}
	var chara, ccv3 []byte
	for _, c := range chunks {
		switch c.Keyword {
		case "ccv3":
			ccv3 = c.Text
		case "chara":
			chara = c.Text
		}
	}
	key, enc := "ccv3", ccv3
	if enc == nil {
		key, enc = "chara", chara
	}
	if enc == nil {
		return nil, hearth.Errorf(hearth.Invalid, "card: this PNG holds no character card (no tEXt chunk named ccv3 or chara)")
	}
	if base64.StdEncoding.DecodedLen(len(enc)) > MaxJSONBytes+3 {
		return nil, hearth.Errorf(hearth.Invalid, "card: the %s chunk holds more than the %d bytes of JSON allowed", key, MaxJSONBytes)
	}
	raw, err := decodeBase64(enc)
	if err != nil {
		return nil, hearth.Errorf(hearth.Invalid, "card: the %s chunk is not base64: %v", key, err)
	}
	c, err := ParseJSON(raw)
	if err != nil {
		return nil, hearth.Errorf(hearth.Invalid, "%v (in the PNG's %s chunk)", err, key)
	}
	return c, nil
}

// decodeBase64 accepts padded and unpadded base64, with stray whitespace,
// as card editors write both.
func decodeBase64(s []byte) ([]byte, error) {
	s = bytes.Join(bytes.Fields(s), nil)
	if out, err := base64.StdEncoding.DecodeString(string(s)); err == nil {
		return out, nil
	}
	return base64.RawStdEncoding.DecodeString(string(bytes.TrimRight(s, "=")))
}
