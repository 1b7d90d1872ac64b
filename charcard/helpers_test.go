package charcard_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// pngWith encodes a real 4×4 picture with image/png and inserts a tEXt
// chunk per pair (keyword, text) before IEND, as card editors do.
func pngWith(t testing.TB, pairs ...string) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{200, 80, 20, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	iend := len(b) - 12
	var out bytes.Buffer
	out.Write(b[:iend])
	for i := 0; i+1 < len(pairs); i += 2 {
		out.Write(chunk("tEXt", append(append([]byte(pairs[i]), 0), pairs[i+1]...)))
	}
	out.Write(b[iend:])
	return out.Bytes()
}

func chunk(typ string, data []byte) []byte {
	var c bytes.Buffer
	_ = binary.Write(&c, binary.BigEndian, uint32(len(data)))
	c.WriteString(typ)
	c.Write(data)
	_ = binary.Write(&c, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	return c.Bytes()
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
