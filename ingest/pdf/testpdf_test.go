package pdf

import (
	"bytes"
	"crypto/md5"
	"crypto/rc4"
	"fmt"
	"testing"
)

// tinyPDF writes a valid PDF with one page per text, each showing its
// text in Helvetica, with a correct cross-reference table.
func tinyPDF(texts ...string) []byte {
	contents := make([]string, len(texts))
	for i, t := range texts {
		if t != "" {
			contents[i] = fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", t)
		}
	}
	return streamPDF(contents...)
}

// streamPDF writes a valid PDF with one page per content stream; /F1 is
// Helvetica, /F2 Courier.
func streamPDF(contents ...string) []byte {
	var objs []string
	n := len(contents)
	kids := ""
	for i := range n {
		kids += fmt.Sprintf("%d 0 R ", 5+2*i)
	}
	objs = append(objs, "<< /Type /Catalog /Pages 2 0 R >>")
	objs = append(objs, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, n))
	objs = append(objs, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	objs = append(objs, "<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>")
	for i, content := range contents {
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>", 6+2*i))
		objs = append(objs, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	}
	return writePDF(objs, "")
}

func writePDF(objs []string, trailerExtra string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailerExtra, xref)
	return b.Bytes()
}

// encryptedPDF builds a one-page PDF encrypted with the Standard
// security handler (RC4, 40-bit, revision 2) under user password
// "secret" and owner password "owner", following PDF 1.7 §7.6.3.
func encryptedPDF(t *testing.T) []byte {
	t.Helper()
	pad := []byte{0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
		0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A}
	padded := func(pw string) []byte { return append([]byte(pw), pad[:32-len(pw)]...) }
	rc := func(key, data []byte) []byte {
		c, err := rc4.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]byte, len(data))
		c.XORKeyStream(out, data)
		return out
	}
	// Algorithm 3: the O entry.
	ok := md5.Sum(padded("owner"))
	o := rc(ok[:5], padded("secret"))
	// Algorithm 2: the file key; P = -4 as little-endian bytes.
	id := []byte("0123456789abcdef")
	h := md5.New()
	h.Write(padded("secret"))
	h.Write(o)
	h.Write([]byte{0xFC, 0xFF, 0xFF, 0xFF})
	h.Write(id)
	key := h.Sum(nil)[:5]
	// Algorithm 4: the U entry.
	u := rc(key, pad)
	// Encrypt the page's content stream with its object key.
	objKey := func(num int) []byte {
		s := md5.Sum(append(append([]byte{}, key...), byte(num), byte(num>>8), byte(num>>16), 0, 0))
		return s[:10]
	}
	content := rc(objKey(5), []byte("BT /F1 12 Tf 72 720 Td (Secret words for nobody.) Tj ET"))
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		fmt.Sprintf("<< /Filter /Standard /V 1 /R 2 /O <%x> /U <%x> /P -4 >>", o, u),
	}
	return writePDF(objs, fmt.Sprintf("/Encrypt 6 0 R /ID [<%x> <%x>] ", id, id))
}
