package epub

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/hearth-rpg/hearth/ingest"
)

// container is META-INF/container.xml.
type container struct {
	Rootfiles []struct {
		FullPath  string `xml:"full-path,attr"`
		MediaType string `xml:"media-type,attr"`
	} `xml:"rootfiles>rootfile"`
}

// opf is the package document: metadata, manifest and spine.
type opf struct {
	Version  string `xml:"version,attr"`
	Metadata struct {
		Titles   []string `xml:"title"`
		Creators []string `xml:"creator"`
		Language []string `xml:"language"`
		Rights   []string `xml:"rights"`
	} `xml:"metadata"`
	Items []struct {
		ID         string `xml:"id,attr"`
		Href       string `xml:"href,attr"`
		MediaType  string `xml:"media-type,attr"`
		Properties string `xml:"properties,attr"`
	} `xml:"manifest>item"`
	Spine struct {
		Toc   string `xml:"toc,attr"`
		Items []struct {
			IDRef  string `xml:"idref,attr"`
			Linear string `xml:"linear,attr"`
		} `xml:"itemref"`
	} `xml:"spine"`
}

// decodeXML reads an XML document leniently: books in the wild declare
// charsets and entities that encoding/xml would refuse.
func decodeXML(name string, b []byte, v any) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%w: %s is not well-formed XML: %v", ingest.ErrCorrupt, name, err)
	}
	return nil
}

// rootfile finds the package document named by container.xml.
func rootfile(a *archive) (string, error) {
	b, err := a.open("META-INF/container.xml")
	if err != nil {
		return "", fmt.Errorf("not an EPUB (META-INF/container.xml is required): %w", err)
	}
	var c container
	if err := decodeXML("META-INF/container.xml", b, &c); err != nil {
		return "", err
	}
	for _, r := range c.Rootfiles {
		if r.FullPath == "" {
			continue
		}
		if err := checkName(r.FullPath); err != nil {
			return "", err
		}
		return strings.TrimPrefix(r.FullPath, "./"), nil
	}
	return "", fmt.Errorf("%w: META-INF/container.xml names no package document", ingest.ErrCorrupt)
}
