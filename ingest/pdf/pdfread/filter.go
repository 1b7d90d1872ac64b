package pdfread

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
)

// Decode returns the stream's decoded bytes. Image-only filters (DCT,
// JPX, CCITT, JBIG2) are unsupported.
func (f *File) Decode(s *Stream) ([]byte, error) { return f.decode(s) }

func (f *File) decode(s *Stream) ([]byte, error) {
	data := s.Raw
	filters, params := f.filterList(s.Dict)
	for i, name := range filters {
		var err error
		switch name {
		case "FlateDecode", "Fl":
			data, err = inflate(data)
			if err == nil {
				data, err = predict(params[i], data)
			}
		case "LZWDecode", "LZW":
			early := 1
			if v, ok := params[i]["EarlyChange"].(int64); ok {
				early = int(v)
			}
			data, err = lzwDecode(data, early)
			if err == nil {
				data, err = predict(params[i], data)
			}
		case "ASCIIHexDecode", "AHx":
			data, err = asciiHex(data)
		case "ASCII85Decode", "A85":
			data, err = decodeASCII85(data)
		case "RunLengthDecode", "RL":
			data, err = runLength(data)
		default:
			return nil, unsupported("filter %s on object %d", name, s.ref.Num)
		}
		if err != nil {
			return nil, fmt.Errorf("object %d, filter %s: %w", s.ref.Num, name, err)
		}
	}
	return data, nil
}

func (f *File) filterList(d Dict) ([]Name, []Dict) {
	var names []Name
	var params []Dict
	switch v := f.R(d["Filter"]).(type) {
	case Name:
		names = []Name{v}
	case Array:
		for _, x := range v {
			if n, ok := f.R(x).(Name); ok {
				names = append(names, n)
			}
		}
	}
	dp := f.R(d["DecodeParms"])
	for i := range names {
		var p Dict
		switch v := dp.(type) {
		case Dict:
			if i == 0 {
				p = v
			}
		case Array:
			if i < len(v) {
				p, _ = f.R(v[i]).(Dict)
			}
		}
		params = append(params, p)
	}
	return names, params
}

// limitedWriter fails when more than maxDecoded bytes are written.
type limitedBuf struct{ bytes.Buffer }

func (b *limitedBuf) Write(p []byte) (int, error) {
	if b.Len()+len(p) > maxDecoded {
		return 0, malformed("stream decodes to more than %d bytes", maxDecoded)
	}
	return b.Buffer.Write(p)
}

// inflate decodes zlib data; a truncated or damaged tail keeps what was
// decoded before it, as other readers do.
func inflate(data []byte) ([]byte, error) {
	var out limitedBuf
	out.Grow(len(data) * 4)
	return inflateInto(data, &out, nil)
}

// inflateInto decodes into out with zr, a zlib reader to reset, if not nil.
func inflateInto(data []byte, out *limitedBuf, zr io.ReadCloser) ([]byte, error) {
	var r io.ReadCloser
	var err error
	if rs, ok := zr.(zlib.Resetter); ok && rs.Reset(bytes.NewReader(data), nil) == nil {
		r = zr
	} else if r, err = zlib.NewReader(bytes.NewReader(data)); err != nil {
		// No zlib header: try raw deflate.
		r = flate.NewReader(bytes.NewReader(data))
	}
	defer r.Close()
	_, err = io.Copy(out, r)
	if err != nil && out.Len() == 0 {
		return nil, malformed("flate: %v", err)
	}
	if errors.Is(err, ErrMalformed) {
		return nil, err
	}
	return out.Bytes(), nil
}

// predict undoes PNG and TIFF predictors.
func predict(p Dict, data []byte) ([]byte, error) {
	if p == nil {
		return data, nil
	}
	pred, _ := p["Predictor"].(int64)
	if pred <= 1 {
		return data, nil
	}
	colors, bpc, cols := int64(1), int64(8), int64(1)
	if v, ok := p["Colors"].(int64); ok {
		colors = v
	}
	if v, ok := p["BitsPerComponent"].(int64); ok {
		bpc = v
	}
	if v, ok := p["Columns"].(int64); ok {
		cols = v
	}
	if colors < 1 || colors > 32 || bpc < 1 || bpc > 16 || cols < 1 || cols > 1<<20 {
		return nil, malformed("bad predictor parameters")
	}
	bpp := int((colors*bpc + 7) / 8)
	row := int((colors*bpc*cols + 7) / 8)
	if pred == 2 {
		if bpc != 8 {
			return nil, unsupported("TIFF predictor with %d bits per component", bpc)
		}
		for i := 0; i+row <= len(data); i += row {
			for j := bpp; j < row; j++ {
				data[i+j] += data[i+j-bpp]
			}
		}
		return data, nil
	}
	out := make([]byte, 0, len(data))
	prev := make([]byte, row)
	cur := make([]byte, row)
	for i := 0; i+1+row <= len(data); i += row + 1 {
		ft := data[i]
		copy(cur, data[i+1:i+1+row])
		for j := range row {
			var a, b, c byte
			if j >= bpp {
				a, c = cur[j-bpp], prev[j-bpp]
			}
			b = prev[j]
			switch ft {
			case 1:
				cur[j] += a
			case 2:
				cur[j] += b
			case 3:
				cur[j] += byte((int(a) + int(b)) / 2)
			case 4:
				pa, pb, pc := abs(int(b)-int(c)), abs(int(a)-int(c)), abs(int(a)+int(b)-2*int(c))
				switch {
				case pa <= pb && pa <= pc:
					cur[j] += a
				case pb <= pc:
					cur[j] += b
				default:
					cur[j] += c
				}
			}
		}
		out = append(out, cur...)
		prev, cur = cur, prev
	}
	return out, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func asciiHex(data []byte) ([]byte, error) {
	out := make([]byte, 0, len(data)/2)
	var hi byte
	half := false
	for _, c := range data {
		if c == '>' {
			break
		}
		v, ok := unhex(c)
		if !ok {
			if isWhite(c) {
				continue
			}
			return nil, malformed("bad ASCIIHex byte %q", c)
		}
		if half {
			out = append(out, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	if half {
		out = append(out, hi<<4)
	}
	return out, nil
}

func decodeASCII85(data []byte) ([]byte, error) {
	out := make([]byte, 0, len(data))
	var v uint32
	n := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case isWhite(c):
			continue
		case c == '~':
			i = len(data)
			continue
		case c == 'z' && n == 0:
			out = append(out, 0, 0, 0, 0)
			continue
		case c < '!' || c > 'u':
			return nil, malformed("bad ASCII85 byte %q", c)
		}
		v = v*85 + uint32(c-'!')
		n++
		if n == 5 {
			out = append(out, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
			v, n = 0, 0
		}
	}
	if n > 1 {
		for k := n; k < 5; k++ {
			v = v*85 + 84
		}
		b := []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
		out = append(out, b[:n-1]...)
	}
	return out, nil
}

func runLength(data []byte) ([]byte, error) {
	var out []byte
	for i := 0; i < len(data); {
		n := int(data[i])
		i++
		switch {
		case n == 128:
			return out, nil
		case n < 128:
			if i+n+1 > len(data) {
				return append(out, data[i:]...), nil
			}
			out = append(out, data[i:i+n+1]...)
			i += n + 1
		default:
			if i >= len(data) {
				return out, nil
			}
			for range 257 - n {
				out = append(out, data[i])
			}
			i++
		}
		if len(out) > maxDecoded {
			return nil, malformed("stream decodes to more than %d bytes", maxDecoded)
		}
	}
	return out, nil
}

// lzwDecode decodes PDF's LZW (MSB first, 9 to 12 bit codes; early
// change 1 switches code width one code early, as TIFF does).
func lzwDecode(data []byte, early int) ([]byte, error) {
	var out []byte
	type entry struct {
		prefix int
		last   byte
		length int
	}
	table := make([]entry, 4096)
	for i := range 256 {
		table[i] = entry{-1, byte(i), 1}
	}
	next := 258
	width := 9
	var acc uint32
	bits := 0
	prev := -1
	emit := func(code int) byte {
		n := table[code].length
		start := len(out)
		out = append(out, make([]byte, n)...)
		c := code
		for k := n - 1; k >= 0; k-- {
			out[start+k] = table[c].last
			c = table[c].prefix
		}
		return out[start]
	}
	for _, b := range data {
		acc = acc<<8 | uint32(b)
		bits += 8
		for bits >= width {
			code := int(acc>>(bits-width)) & (1<<width - 1)
			bits -= width
			switch {
			case code == 256:
				next, width, prev = 258, 9, -1
				continue
			case code == 257:
				return out, nil
			}
			if prev < 0 {
				if code > 255 {
					return nil, malformed("LZW: bad first code %d", code)
				}
				emit(code)
				prev = code
				continue
			}
			var first byte
			if code < next {
				first = emit(code)
				if next < 4096 {
					table[next] = entry{prev, first, table[prev].length + 1}
					next++
				}
			} else if code == next && next < 4096 {
				// The code being defined: prev's string plus its first byte.
				pf := out[len(out)-table[prev].length]
				table[next] = entry{prev, pf, table[prev].length + 1}
				next++
				emit(code)
			} else {
				return nil, malformed("LZW: code %d out of range", code)
			}
			prev = code
			if len(out) > maxDecoded {
				return nil, malformed("stream decodes to more than %d bytes", maxDecoded)
			}
			if next+early >= 1<<width && width < 12 {
				width++
			}
		}
	}
	return out, nil
}
